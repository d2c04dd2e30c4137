package io.github.idworker.test.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStockEmptyException;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialOptions;
import io.github.idworker.test.jdbc.RowLock;
import io.github.idworker.test.pool.JdbcPoolStoreStore;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every wait is bounded by the one setting that names it ({@code max-wait}), whatever the Redis client's socket
 * timeout: with a private redis-server frozen by {@code SIGSTOP}, and with the database row a refill needs locked
 * by another session, a strict serial {@code next}, a Redis sequence {@code nextId} and a pool {@code take} each end
 * with their typed exception within {@code max-wait} + 100 ms (plus slack for a loaded machine, well below the
 * socket timeout, lock timeout or pool wait each case would otherwise wait out). Embedded H2 and the redis-server
 * binary found by {@link RedisClusterSupport}.
 *
 * <p>Both ways of {@link JedisScriptExecutor} are covered: without a declared bound, or with one longer than the
 * time left, the call waits on a pooled thread until {@code max-wait} (a hand-off counted by
 * {@link BoundedCalls#handOffs()}); with a bound shorter than {@code max-wait} it runs on the caller's thread, no
 * hand-off, and the client's own socket timeout ends it first with {@link CenterUnavailableException}.
 */
// exclusive: it measures wall-clock bounds of 1.4 s, which classes running beside it in the other fork disturb
@Tag("exclusive")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BoundedWaitsTest {

    /**
     * Scheduling slack of a busy 2-core machine on top of {@code max-wait} + 100 ms. A second, not less: a full
     * build beside the test (load 40 and more) stalls a thread for hundreds of milliseconds. What the bound tells
     * apart from max-wait stays far above it: the 5 s socket timeout of the short max-wait case, the database's
     * 10 s lock timeout ({@link #LOCK_TIMEOUT_MS}) and the busy pool's 5 s connection timeout; max-wait 300 ms +
     * 100 + 1 000 is 1.4 s. (Where the socket timeout or the client's declared bound lies near max-wait, the
     * exception's type and the hand-off count tell the two paths apart, not the time.)
     */
    private static final long SLACK_MS = 1_000;

    /**
     * H2's lock timeout in this test, 10 s rather than H2's 2 s: a call that waited for a refill stuck behind a
     * locked row would end when H2 gave up on the row, and 2 s lies too close above the asserted bound.
     */
    private static final long LOCK_TIMEOUT_MS = 10_000;

    private PrivateRedisServer redis;
    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private String db;

    @BeforeEach
    void start() throws Throwable {
        redis = PrivateRedisServer.start(List.of());
        db = "jdbc:h2:mem:bounded-waits-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + LOCK_TIMEOUT_MS;
    }

    @AfterEach
    void stop() throws Throwable {
        redis.close();
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
    }

    /** The pool's borrow wait of {@link #client}: part of the longest time one command can block. */
    private static final long POOL_WAIT_MS = 100;

    /**
     * A client whose every call waits up to {@code socketTimeoutMs} for Redis (and as long to connect), and up to
     * {@link #POOL_WAIT_MS} for a pooled connection.
     */
    private UnifiedJedis client(long socketTimeoutMs) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxWait(Duration.ofMillis(POOL_WAIT_MS));
        UnifiedJedis jedis = RedisClient.builder().hostAndPort("127.0.0.1", redis.port()).poolConfig(pool)
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis((int) socketTimeoutMs)
                        .socketTimeoutMillis((int) socketTimeoutMs).build()).build();
        closeLast.add(jedis);
        return jedis;
    }

    /**
     * An executor over {@link #client}; {@code declaredMs} > 0 declares the longest time one command can block as
     * the class comment of {@link JedisScriptExecutor} counts it ({@code w + 2(c + s) + s}), 0 declares none.
     */
    private JedisScriptExecutor executor(long socketTimeoutMs, long declaredMs) {
        UnifiedJedis jedis = client(socketTimeoutMs);
        if (declaredMs == 0) {
            return new JedisScriptExecutor(jedis);
        }
        assertThat(declaredMs).as("the declared bound of the test's client").isEqualTo(declaredBound(socketTimeoutMs));
        return new JedisScriptExecutor(jedis, Duration.ofMillis(declaredMs));
    }

    private static long declaredBound(long socketTimeoutMs) {
        return POOL_WAIT_MS + 2 * (socketTimeoutMs + socketTimeoutMs) + socketTimeoutMs;
    }

    /**
     * What a call of a frozen Redis ends with: the client's own error when its declared bound fits in
     * {@code max-wait} (it ran on the caller's thread), else {@code typed} at {@code max-wait}.
     */
    private static Class<? extends Throwable> expected(long declaredMs, long maxWaitMs,
                                                       Class<? extends Throwable> typed) {
        return inline(declaredMs, maxWaitMs) ? CenterUnavailableException.class : typed;
    }

    private static boolean inline(long declaredMs, long maxWaitMs) {
        return declaredMs > 0 && declaredMs < maxWaitMs;
    }

    private static String name() {
        return "w-" + UUID.randomUUID().toString().substring(0, 13);
    }

    private RedisSerialNumbers serials(long socketTimeoutMs, long maxWaitMs, JdbcSerialStore store) {
        return serials(socketTimeoutMs, 0, maxWaitMs, store);
    }

    private RedisSerialNumbers serials(long socketTimeoutMs, long declaredMs, long maxWaitMs, JdbcSerialStore store) {
        RedisSerialNumbers serials = new RedisSerialNumbers(executor(socketTimeoutMs, declaredMs), store,
                new SerialRules(store, Duration.ofSeconds(30), "test table"),
                RedisSerialOptions.builder().keyPrefix("idworker-test").maxWait(Duration.ofMillis(maxWaitMs)).build());
        closeLast.add(serials);
        return serials;
    }

    private JdbcSerialStore serialStore() {
        com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource();
        ds.setJdbcUrl(db);
        ds.setUsername("sa");
        ds.setPassword("");
        ds.setMaximumPoolSize(8);
        closeLast.add(ds);
        JdbcSerialStore store = new JdbcSerialStore(ds);
        store.createSchemaIfMissing();
        return store;
    }

    private RedisSegmentIdGenerator sequence(long socketTimeoutMs, long maxWaitMs, JdbcSegmentAllocatorStore store,
                                             String tag) {
        return sequence(socketTimeoutMs, 0, maxWaitMs, store, tag);
    }

    private RedisSegmentIdGenerator sequence(long socketTimeoutMs, long declaredMs, long maxWaitMs,
                                             JdbcSegmentAllocatorStore store, String tag) {
        store.newAllocator(false).register(tag, 0, 100);
        return new RedisSegmentIdGenerator(executor(socketTimeoutMs, declaredMs), store.newAllocator(false),
                tag, RedisSegmentOptions.builder().keyPrefix("idworker-test").step(5)
                        // no range ahead: a refill ahead that landed before the row was locked would serve the call
                        // the database-hang test expects to wait
                        .prefetchThreshold(1)
                        .maxWait(Duration.ofMillis(maxWaitMs)).build());
    }

    private RedisIdPools pools(long socketTimeoutMs, long maxWaitMs, JdbcPoolStore store) {
        return pools(socketTimeoutMs, 0, maxWaitMs, store);
    }

    private RedisIdPools pools(long socketTimeoutMs, long declaredMs, long maxWaitMs, JdbcPoolStore store) {
        RedisIdPools pools = new RedisIdPools(executor(socketTimeoutMs, declaredMs), store,
                RedisPoolOptions.builder().keyPrefix("idworker-test").maxWait(Duration.ofMillis(maxWaitMs)).build());
        closeLast.add(pools);
        return pools;
    }

    private static PoolEntity entity() {
        return PoolEntity.builder("p-" + UUID.randomUUID().toString().substring(0, 13)).step(100).maxPerRequest(10)
                .maxPerSecond(100_000).maxPoolSize(200L).thresholdPercent(20).build();
    }

    /**
     * Socket timeout, declared bound of the executor (0: none) and max-wait: no bound (the pooled thread), a bound
     * longer than max-wait (the pooled thread), a bound shorter than max-wait (the caller's thread).
     */
    private static final String CASES = "socket timeout {0} ms, declared bound {1} ms, max-wait {2} ms";

    @ParameterizedTest(name = CASES)
    @CsvSource({"1000, 0, 1000", "5000, 0, 300", "1000, 5100, 1000", "250, 1350, 2000"})
    void aStrictSerialOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long declaredMs, long maxWaitMs)
            throws Throwable {
        JdbcSerialStore store = serialStore();
        SerialRule rule = store.register(SerialRule.builder(name()).prefix("W").datePattern("").width(8)
                .minBatch(1000).maxBatch(1000).build());
        RedisSerialNumbers serials = serials(socketTimeoutMs, declaredMs, maxWaitMs, store);
        assertThat(eventually(() -> serials.next(rule.name()))).startsWith("W");
        handsOffOnlyWithoutAFittingBound(declaredMs, maxWaitMs, () -> serials.next(rule.name()));
        frozen(() -> assertBounded("serial next", declaredMs, maxWaitMs,
                expected(declaredMs, maxWaitMs, SerialStockEmptyException.class), () -> serials.next(rule.name())));
        // Redis answers again: the call that gave up may have taken a number (a gap), none is handed out twice
        assertThat(eventually(() -> serials.next(rule.name()))).isGreaterThan("W00000002");
    }

    @ParameterizedTest(name = CASES)
    @CsvSource({"1000, 0, 1000", "5000, 0, 300", "1000, 5100, 1000", "250, 1350, 2000"})
    void aRedisSequenceOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long declaredMs, long maxWaitMs)
            throws Throwable {
        try (JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore(db, "sa", "")) {
            String tag = name();
            RedisSegmentIdGenerator sequence = sequence(socketTimeoutMs, declaredMs, maxWaitMs, store, tag);
            long first = eventually(sequence::nextId);
            handsOffOnlyWithoutAFittingBound(declaredMs, maxWaitMs, sequence::nextId);
            frozen(() -> assertBounded("sequence nextId", declaredMs, maxWaitMs,
                    expected(declaredMs, maxWaitMs, SegmentRefillTimeoutException.class), sequence::nextId));
            assertThat(eventually(sequence::nextId)).isGreaterThan(first + 1);
        }
    }

    @ParameterizedTest(name = CASES)
    @CsvSource({"1000, 0, 1000", "5000, 0, 300", "1000, 5100, 1000", "250, 1350, 2000"})
    void aPoolTakeOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long declaredMs, long maxWaitMs)
            throws Throwable {
        JdbcPoolStoreStore tables = new JdbcPoolStoreStore(db, "sa", "");
        closeLast.add(tables::close);
        RedisIdPools pools = pools(socketTimeoutMs, Math.max(maxWaitMs, 1000), tables.newStore());
        PoolEntity e = pools.register(entity());
        awaitTake(pools, e.key());
        RedisIdPools bounded = pools(socketTimeoutMs, declaredMs, maxWaitMs, tables.newStore());
        awaitTake(bounded, e.key());
        handsOffOnlyWithoutAFittingBound(declaredMs, maxWaitMs, () -> bounded.take(e.key(), 1));
        frozen(() -> assertBounded("pool take", declaredMs, maxWaitMs,
                expected(declaredMs, maxWaitMs, PoolTimeoutException.class), () -> bounded.take(e.key(), 5)));
    }

    /**
     * A call of a healthy Redis hands its Redis call to a pooled thread exactly when the executor declares no bound
     * that fits in {@code max-wait}. (The hand-off counter is the JVM's; no other test runs in it meanwhile.)
     */
    private static void handsOffOnlyWithoutAFittingBound(long declaredMs, long maxWaitMs, Callable<?> call)
            throws Throwable {
        long before = BoundedCalls.handOffs();
        eventually(call);
        long handOffs = BoundedCalls.handOffs() - before;
        if (inline(declaredMs, maxWaitMs)) {
            assertThat(handOffs).as("hand-offs of a call whose client's bound fits in max-wait").isZero();
        } else {
            assertThat(handOffs).as("hand-offs of a call whose client has no bound that fits").isPositive();
        }
    }

    @Test
    void aStrictSerialWhoseRefillHangsInTheDatabaseEndsWithinMaxWait() throws Throwable {
        JdbcSerialStore store = serialStore();
        SerialRule rule = store.register(SerialRule.builder(name()).prefix("H").datePattern("").width(8)
                .minBatch(3).maxBatch(3).critical(0).build());
        RedisSerialNumbers serials = serials(2_000, 300, store);
        eventually(() -> serials.next(rule.name(), 3)); // the stock is empty now, and its refill starts in the background
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (serials.refills() < 2) {
            assertThat(System.nanoTime() - until).as("the background refill never landed").isNegative();
            Thread.sleep(10);
        }
        com.zaxxer.hikari.HikariDataSource other = new com.zaxxer.hikari.HikariDataSource();
        other.setJdbcUrl(db);
        other.setUsername("sa");
        closeLast.add(other);
        try (RowLock lock = RowLock.lock(other, "SELECT high_water FROM " + JdbcSerialStore.DEFAULT_TABLE
                + JdbcSerialStore.PERIOD_TABLE_SUFFIX + " WHERE rule_name = ? FOR UPDATE", rule.name())) {
            serials.next(rule.name(), 3); // served from the stock, whose next refill waits for the row
            assertBounded("serial next, database hung", 300, SerialStockEmptyException.class,
                    () -> serials.next(rule.name()));
        }
    }

    @Test
    void aRedisSequenceWhoseRefillHangsInTheDatabaseEndsWithinMaxWait() throws Throwable {
        try (JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore(db, "sa", "")) {
            String tag = name();
            RedisSegmentIdGenerator sequence = sequence(2_000, 300, store, tag);
            eventually(() -> sequence.nextIds(5)); // the first range, used up
            try (AutoCloseable lock = store.lockTag(tag)) {
                assertBounded("sequence nextIds, database hung", 300, SegmentRefillTimeoutException.class,
                        () -> sequence.nextIds(5));
            }
        }
    }

    @Test
    void aFirstPoolTakeWhoseDatabaseHangsEndsWithinMaxWait() throws Throwable {
        JdbcPoolStoreStore tables = new JdbcPoolStoreStore(db, "sa", "");
        closeLast.add(tables::close);
        RedisIdPools first = pools(2_000, 1_000, tables.newStore());
        PoolEntity e = first.register(entity());
        awaitLevel(first, e.key(), e.maxPoolSize());
        // the second node's database hands out no connection (its one connection is busy) for 5 s at a time: its
        // first take must look the entity up and check it, and may not wait that long
        com.zaxxer.hikari.HikariDataSource busy = new com.zaxxer.hikari.HikariDataSource();
        busy.setJdbcUrl(db);
        busy.setUsername("sa");
        busy.setMaximumPoolSize(1);
        busy.setConnectionTimeout(5_000);
        closeLast.add(busy);
        RedisIdPools second = pools(2_000, 300, new JdbcPoolStore(busy));
        try (java.sql.Connection held = busy.getConnection()) {
            assertBounded("first pool take, database hung", 300, PoolTimeoutException.class,
                    () -> second.take(e.key(), 1));
        }
        assertThat(first.take(e.key(), 1)).hasSize(1);
    }

    private static void awaitLevel(RedisIdPools pools, String entity, long level) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pools.status(entity).level() < level) {
            assertThat(System.nanoTime() - until).as("pool " + entity + " never reached " + level).isNegative();
            Thread.sleep(20);
        }
    }

    /**
     * {@code call}'s result, calling again after a typed failure for up to 20 s: a set-up call of a healthy Redis
     * with a short max-wait may time out on a busy machine (a cold JVM's first refill, other builds).
     */
    private static <T> T eventually(Callable<T> call) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return call.call();
            } catch (IdWorkerException e) {
                if (System.nanoTime() - until > 0) {
                    throw e;
                }
                System.out.println("set-up call failed, again: " + e);
            }
        }
    }

    /** Runs {@code action} with Redis frozen, thawing it whatever happens. */
    private void frozen(Executable action) throws Throwable {
        redis.freeze();
        try {
            action.execute();
        } finally {
            redis.thaw();
        }
    }

    private static void awaitTake(RedisIdPools pools, String entity) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                pools.take(entity, 1);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() - until > 0) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    /**
     * {@link #assertBounded(String, long, Class, Executable)}, and a call whose client's bound fits in
     * {@code max-wait} must have stayed on the caller's thread (no hand-off) and ended by that bound.
     */
    private static void assertBounded(String call, long declaredMs, long maxWaitMs,
                                      Class<? extends Throwable> expected, Executable action) {
        long before = BoundedCalls.handOffs();
        // on the caller's thread the client's own timeouts end the call, within the declared bound
        assertBounded(call + (inline(declaredMs, maxWaitMs) ? " (caller's thread; bound declared " + declaredMs
                + " ms, max-wait " + maxWaitMs + " ms)" : " (pooled thread)"),
                inline(declaredMs, maxWaitMs) ? declaredMs : maxWaitMs, expected, action);
        if (inline(declaredMs, maxWaitMs)) {
            assertThat(BoundedCalls.handOffs() - before).as(call + ": hand-offs with a declared bound that fits")
                    .isZero();
        }
    }

    private static void assertBounded(String call, long maxWaitMs, Class<? extends Throwable> expected,
                                      Executable action) {
        long started = System.nanoTime();
        assertThatThrownBy(action::execute).as(call).isExactlyInstanceOf(expected);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("%s ended after %d ms (bound %d ms)%n", call, tookMs, maxWaitMs);
        assertThat(tookMs).as(call + " took longer than max-wait + 100 ms (+ " + SLACK_MS + " ms slack)")
                .isLessThan(maxWaitMs + 100 + SLACK_MS);
    }

}
