package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPoolConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The deadline of {@link SpringRedisScriptExecutor}: a Redis sequence over a private redis-server frozen with
 * {@code SIGSTOP} ends within {@code max-wait} (+ 1 s for a busy machine) whatever the client's timeouts, and
 * the client decides whether a thread hand-off ({@link BoundedCalls#handOffs()}) is needed:
 * <ul>
 *   <li>Lettuce (command timeout 10 s): no hand-off, the caller waits on Lettuce's future until max-wait, then
 *       {@link SegmentRefillTimeoutException};</li>
 *   <li>Jedis whose timeouts and pool wait bound a call below max-wait: no hand-off, the client's read timeout ends
 *       the call first with {@link CenterUnavailableException};</li>
 *   <li>Jedis with the defaults (2 s timeouts, a pool that waits without a limit): a hand-off per call, and
 *       {@link SegmentRefillTimeoutException} at max-wait.</li>
 * </ul>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringRedisScriptExecutorDeadlineTest {

    /**
     * Scheduling slack of a busy 2-core machine on top of {@code max-wait}: a second, since a full build beside the
     * test stalls a thread for hundreds of milliseconds. With max-wait 300 ms the bound, 1.3 s, stays far below
     * Lettuce's 10 s command timeout and the default Jedis's 2 s socket timeout, which a call ignoring max-wait
     * would wait out; where the client's own bound lies below max-wait (the bounded Jedis), the exception's type
     * and the hand-off count tell the paths apart.
     */
    private static final long SLACK_MS = 1_000;

    private Path dir;
    private int port;
    private Process redis;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void startRedis() throws IOException {
        dir = Files.createTempDirectory("idworker-redis-");
        port = RedisClusterSupport.freePort();
        redis = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
    }

    @AfterEach
    void stopRedis() throws Exception {
        signal("CONT");
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        RedisClusterSupport.kill(redis);
        RedisClusterSupport.deleteRecursively(dir);
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(redis.pid())).start().waitFor();
        assertThat(rc).as("kill -" + signal).isZero();
    }

    private RedisConnectionFactory factory(String client) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", port);
        switch (client) {
            case "lettuce" -> {
                LettuceConnectionFactory f = new LettuceConnectionFactory(server, LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(10)).shutdownTimeout(Duration.ZERO).build());
                f.afterPropertiesSet();
                f.start();
                toClose.add(f::destroy);
                // connected, as in a running application (a cold JVM takes longer than 300 ms for its first one)
                try (var connection = f.getConnection()) {
                    connection.ping();
                }
                return f;
            }
            case "jedis-bounded" -> {
                JedisPoolConfig pool = new JedisPoolConfig();
                pool.setMaxWait(Duration.ofMillis(100));
                JedisConnectionFactory f = new JedisConnectionFactory(server, JedisClientConfiguration.builder()
                        .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(100))
                        .usePooling().poolConfig(pool).build());
                f.afterPropertiesSet();
                f.start();
                toClose.add(f::destroy);
                return f;
            }
            case "jedis-default" -> {
                JedisConnectionFactory f = new JedisConnectionFactory(server);
                f.afterPropertiesSet();
                f.start();
                toClose.add(f::destroy);
                return f;
            }
            default -> throw new IllegalArgumentException(client);
        }
    }

    /**
     * A sequence of a new tag waiting at most {@code maxWaitMs}, whose first range is already in Redis: installed
     * by another generator of the tag with a long wait, since a cold JVM's first refill (H2, the lock) may take
     * longer than a short max-wait.
     */
    private RedisSegmentIdGenerator sequence(SpringRedisScriptExecutor executor, long maxWaitMs) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(TestNames.h2Url());
        JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(ds);
        allocator.createSchemaIfMissing();
        String tag = "d-" + UUID.randomUUID().toString().substring(0, 12);
        allocator.register(tag, 0, 1000);
        RedisSegmentOptions.Builder options = RedisSegmentOptions.builder().keyPrefix("idworker-test").step(1000);
        assertThat(new RedisSegmentIdGenerator(executor, allocator, tag, options.maxWait(Duration.ofSeconds(10))
                .build()).nextId()).isEqualTo(1);
        return new RedisSegmentIdGenerator(executor, allocator, tag,
                options.maxWait(Duration.ofMillis(maxWaitMs)).build());
    }

    /**
     * Client, how it waits, max-wait, and what a call of a frozen Redis ends with. The bounded Jedis blocks at most
     * 100 (pool) + 2 × (100 + 3 × 100) (a new connection and its replacement) + 2 × 100 = 1 100 ms, below max-wait.
     */
    @ParameterizedTest(name = "{0}: {1}, max-wait {2} ms")
    @CsvSource({
            "lettuce, lettuce-async, 300, SegmentRefillTimeoutException",
            "jedis-bounded, inline, 2000, CenterUnavailableException",
            "jedis-default, pooled-thread, 300, SegmentRefillTimeoutException"})
    void aSequenceOfAFrozenRedisEndsWithinMaxWait(String client, String mode, long maxWaitMs, String expected)
            throws Throwable {
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(factory(client));
        assertThat(executor.deadlineMode()).isEqualTo(mode);
        RedisSegmentIdGenerator sequence = sequence(executor, maxWaitMs);
        long first = nextIdOfAHealthyRedis(sequence);
        boolean handsOff = mode.equals("pooled-thread");

        long before = BoundedCalls.handOffs();
        long last = first;
        for (int i = 0; i < 50; i++) {
            long next = nextIdOfAHealthyRedis(sequence);
            assertThat(next).isGreaterThan(last);
            last = next;
        }
        long handOffs = BoundedCalls.handOffs() - before;
        if (handsOff) {
            assertThat(handOffs).as("hand-offs of 50 calls").isGreaterThanOrEqualTo(50);
        } else {
            assertThat(handOffs).as("hand-offs of 50 calls").isZero();
        }

        signal("STOP");
        try {
            long frozenBefore = BoundedCalls.handOffs();
            long started = System.nanoTime();
            assertThatThrownBy(sequence::nextId).satisfies(e -> assertThat(e.getClass().getSimpleName())
                    .as(String.valueOf(e)).isEqualTo(expected));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("%s (%s): nextId of a frozen Redis ended after %d ms (max-wait %d ms)%n", client, mode,
                    tookMs, maxWaitMs);
            assertThat(tookMs).as("took longer than max-wait + " + SLACK_MS + " ms").isLessThan(maxWaitMs + SLACK_MS);
            if (!handsOff) {
                assertThat(BoundedCalls.handOffs() - frozenBefore).as("hand-offs of the frozen call").isZero();
            }
        } finally {
            signal("CONT");
        }
        // Redis answers again: what the call that gave up took is a gap, nothing is issued twice
        assertThat(nextIdOfAHealthyRedis(sequence)).isGreaterThan(last);
    }

    /**
     * The sequence's next number, asking again after a typed failure for up to 20 s: a call of a healthy (or just
     * thawed) Redis with a short max-wait or read timeout may time out on a loaded 2-core machine; those calls set the
     * test up, they are not what it bounds.
     */
    private static long nextIdOfAHealthyRedis(RedisSegmentIdGenerator sequence) {
        return await().atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .pollInSameThread().ignoreExceptionsInstanceOf(IdWorkerException.class)
                .until(sequence::nextId, id -> true);
    }

    /** Lettuce's asynchronous path: EVALSHA, EVAL after a script flush, every reply shape as a list, no hand-off. */
    @Test
    void lettuceRunsByShaReloadsAfterAFlushAndAnswersEveryShapeWithoutAHandOff() throws Throwable {
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(factory("lettuce"));
        String id = UUID.randomUUID().toString().substring(0, 8);
        LuaScript echo = LuaScript.of("echo-" + id, "return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1, {'nested'}}");
        assertThat(call(executor, echo, "hello", "41")).containsExactly("{t}:k", "hello", 42L, List.of("nested"));
        long before = BoundedCalls.handOffs();
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            assertThat(jedis.scriptExists(echo.sha1())).as("cached under the SHA-1 LuaScript computed").isTrue();
            jedis.scriptFlush();
        }
        assertThat(call(executor, echo, "again", "1")).containsExactly("{t}:k", "again", 2L, List.of("nested"));
        assertThat(call(executor, LuaScript.of("int-" + id, "return 1"))).containsExactly(1L);
        assertThat(call(executor, LuaScript.of("str-" + id, "return ARGV[1]"), "OK")).containsExactly("OK");
        assertThat(call(executor, LuaScript.of("nil-" + id, "return nil"))).isEmpty();
        assertThat(call(executor, LuaScript.of("arr-" + id, "return {'OK', 7, 9}"))).containsExactly("OK", 7L, 9L);
        assertThatThrownBy(() -> call(executor, LuaScript.of("broken-" + id, "return redis.call('NOSUCHCOMMAND')")))
                .isExactlyInstanceOf(CenterUnavailableException.class).hasMessageContaining("broken-" + id)
                .hasMessageContaining("127.0.0.1:" + port);
        assertThat(BoundedCalls.handOffs() - before).as("hand-offs").isZero();
    }

    /** A deadline already passed sends nothing; a stopped factory is a {@link CenterUnavailableException}. */
    @Test
    void lettuceEndsAtOnceAtAPassedDeadlineAndAfterItsFactoryStopped() {
        LettuceConnectionFactory factory = (LettuceConnectionFactory) factory("lettuce");
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(factory);
        LuaScript one = LuaScript.of("one-" + UUID.randomUUID(), "return 1");
        Supplier<RuntimeException> timedOut = () -> new IllegalStateException("timed out");
        assertThatThrownBy(() -> executor.execute(one, List.of("{t}:k"), List.of(), System.nanoTime(), timedOut))
                .hasMessage("timed out");
        factory.stop();
        assertThatThrownBy(() -> executor.execute(one, List.of("{t}:k"), List.of(),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(5), timedOut))
                .isExactlyInstanceOf(CenterUnavailableException.class).hasMessageContaining("one-");
    }

    private static List<Object> call(SpringRedisScriptExecutor executor, LuaScript script, String... args) {
        return executor.execute(script, List.of("{t}:k"), List.of(args), System.nanoTime()
                + TimeUnit.SECONDS.toNanos(5), () -> new IllegalStateException("no answer within 5 s"));
    }

}
