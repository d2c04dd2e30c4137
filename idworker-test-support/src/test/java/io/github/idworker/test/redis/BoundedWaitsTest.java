package io.github.idworker.test.redis;

import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every wait is bounded by the one setting that names it ({@code max-wait}), whatever the Redis client's socket
 * timeout: with a private redis-server frozen by {@code SIGSTOP}, and with the database row a refill needs locked
 * by another session, a strict serial {@code next}, a Redis sequence {@code nextId} and a pool {@code take} each end
 * with their typed exception within {@code max-wait} + 100 ms (plus slack for a loaded machine, far below one
 * socket timeout). Embedded H2 and the redis-server binary found by {@link RedisClusterSupport}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BoundedWaitsTest {

    /** Scheduling slack of a busy 2-core machine on top of {@code max-wait} + 100 ms. */
    private static final long SLACK_MS = 150;

    private PrivateRedisServer redis;
    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private String db;

    @BeforeEach
    void start() throws Throwable {
        redis = PrivateRedisServer.start(List.of());
        db = "jdbc:h2:mem:bounded-waits-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    @AfterEach
    void stop() throws Throwable {
        redis.close();
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
    }

    /** A client whose every call waits up to {@code socketTimeoutMs} for Redis. */
    private UnifiedJedis client(long socketTimeoutMs) {
        UnifiedJedis jedis = RedisClient.builder().hostAndPort("127.0.0.1", redis.port())
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis((int) socketTimeoutMs)
                        .socketTimeoutMillis((int) socketTimeoutMs).build()).build();
        closeLast.add(jedis);
        return jedis;
    }

    private static String name() {
        return "w-" + UUID.randomUUID().toString().substring(0, 13);
    }

    private RedisSerialNumbers serials(long socketTimeoutMs, long maxWaitMs, JdbcSerialStore store) {
        RedisSerialNumbers serials = new RedisSerialNumbers(new JedisScriptExecutor(client(socketTimeoutMs)), store,
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
        store.newAllocator(false).register(tag, 0, 100);
        return new RedisSegmentIdGenerator(new JedisScriptExecutor(client(socketTimeoutMs)), store.newAllocator(false),
                tag, RedisSegmentOptions.builder().keyPrefix("idworker-test").step(5)
                        .maxWait(Duration.ofMillis(maxWaitMs)).build());
    }

    private RedisIdPools pools(long socketTimeoutMs, long maxWaitMs, JdbcPoolStore store) {
        RedisIdPools pools = new RedisIdPools(new JedisScriptExecutor(client(socketTimeoutMs)), store,
                RedisPoolOptions.builder().keyPrefix("idworker-test").maxWait(Duration.ofMillis(maxWaitMs)).build());
        closeLast.add(pools);
        return pools;
    }

    private static PoolEntity entity() {
        return PoolEntity.builder("p-" + UUID.randomUUID().toString().substring(0, 13)).step(100).maxPerRequest(10)
                .maxPerSecond(100_000).maxPoolSize(200L).thresholdPercent(20).build();
    }

    @ParameterizedTest(name = "socket timeout {0} ms, max-wait {1} ms")
    @CsvSource({"1000, 1000", "2000, 300"})
    void aStrictSerialOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long maxWaitMs) throws Throwable {
        JdbcSerialStore store = serialStore();
        SerialRule rule = store.register(SerialRule.builder(name()).prefix("W").datePattern("").width(8)
                .minBatch(1000).maxBatch(1000).build());
        RedisSerialNumbers serials = serials(socketTimeoutMs, maxWaitMs, store);
        assertThat(serials.next(rule.name())).isEqualTo("W00000001");
        frozen(() -> assertBounded("serial next", maxWaitMs, SerialStockEmptyException.class,
                () -> serials.next(rule.name())));
        // Redis answers again: the call that gave up may have taken a number (a gap), none is handed out twice
        assertThat(serials.next(rule.name())).isGreaterThan("W00000001");
    }

    @ParameterizedTest(name = "socket timeout {0} ms, max-wait {1} ms")
    @CsvSource({"1000, 1000", "2000, 300"})
    void aRedisSequenceOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long maxWaitMs) throws Throwable {
        try (JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore(db, "sa", "")) {
            String tag = name();
            RedisSegmentIdGenerator sequence = sequence(socketTimeoutMs, maxWaitMs, store, tag);
            long first = sequence.nextId();
            frozen(() -> assertBounded("sequence nextId", maxWaitMs, SegmentRefillTimeoutException.class,
                    sequence::nextId));
            assertThat(sequence.nextId()).isGreaterThan(first);
        }
    }

    @ParameterizedTest(name = "socket timeout {0} ms, max-wait {1} ms")
    @CsvSource({"1000, 1000", "2000, 300"})
    void aPoolTakeOfAFrozenRedisEndsWithinMaxWait(long socketTimeoutMs, long maxWaitMs) throws Throwable {
        JdbcPoolStoreStore tables = new JdbcPoolStoreStore(db, "sa", "");
        closeLast.add(tables::close);
        RedisIdPools pools = pools(socketTimeoutMs, Math.max(maxWaitMs, 1000), tables.newStore());
        PoolEntity e = pools.register(entity());
        awaitTake(pools, e.key());
        RedisIdPools bounded = pools(socketTimeoutMs, maxWaitMs, tables.newStore());
        awaitTake(bounded, e.key());
        frozen(() -> assertBounded("pool take", maxWaitMs, PoolTimeoutException.class,
                () -> bounded.take(e.key(), 5)));
    }

    @Test
    void aStrictSerialWhoseRefillHangsInTheDatabaseEndsWithinMaxWait() throws Throwable {
        JdbcSerialStore store = serialStore();
        SerialRule rule = store.register(SerialRule.builder(name()).prefix("H").datePattern("").width(8)
                .minBatch(3).maxBatch(3).critical(0).build());
        RedisSerialNumbers serials = serials(2_000, 300, store);
        serials.next(rule.name(), 3); // the stock is empty now, and its refill starts in the background
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
            sequence.nextIds(5); // the first range, used up
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
        // the second node's database hands out no connection (its one connection is busy) for 2 s at a time: its
        // first take must look the entity up and check it, and may not wait that long
        com.zaxxer.hikari.HikariDataSource busy = new com.zaxxer.hikari.HikariDataSource();
        busy.setJdbcUrl(db);
        busy.setUsername("sa");
        busy.setMaximumPoolSize(1);
        busy.setConnectionTimeout(2_000);
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

    private static void assertBounded(String call, long maxWaitMs, Class<? extends Throwable> expected,
                                      Executable action) {
        long started = System.nanoTime();
        assertThatThrownBy(action::execute).as(call).isExactlyInstanceOf(expected);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("%s ended after %d ms (max-wait %d ms)%n", call, tookMs, maxWaitMs);
        assertThat(tookMs).as(call + " took longer than max-wait + 100 ms (+ " + SLACK_MS + " ms slack)")
                .isLessThan(maxWaitMs + 100 + SLACK_MS);
    }

}
