package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SpringRedisScriptExecutor} over Lettuce on a 3-master Redis Cluster: calls with a deadline go through
 * Lettuce's asynchronous cluster API (routed by their first key, reloaded after {@code NOSCRIPT} on the node that
 * answered it) without a thread hand-off, and end at their deadline while every node is paused
 * ({@code CLIENT PAUSE}), whatever Lettuce's 10 s command timeout.
 */
@Tag("real-services")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringRedisClusterScriptExecutorTest {

    private static RedisClusterSupport cluster;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void start() throws Exception {
        cluster = RedisClusterSupport.startCluster();
        factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodes().stream()
                .map(HostAndPort::toString).toList()), LettuceClientConfiguration.builder()
                .commandTimeout(Duration.ofSeconds(10)).shutdownTimeout(Duration.ZERO).build());
        factory.afterPropertiesSet();
        factory.start();
    }

    @AfterAll
    static void stop() {
        if (factory != null) {
            factory.destroy();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<Object> call(SpringRedisScriptExecutor executor, LuaScript script, String key, long ms,
                                     Supplier<RuntimeException> onTimeout) {
        return executor.execute(script, List.of(key, key + ":2"), List.of("v"),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms), onTimeout);
    }

    @Test
    void callsAreRoutedReloadedAndBoundedWithoutAHandOff() {
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(factory);
        assertThat(executor.deadlineMode()).isEqualTo("lettuce-async");
        LuaScript script = LuaScript.of("cluster-" + UUID.randomUUID(),
                "redis.call('SET', KEYS[2], ARGV[1]); return {KEYS[1], redis.call('GET', KEYS[2])}");
        Supplier<RuntimeException> never = () -> new IllegalStateException("no answer within 10 s");
        call(executor, script, "{warm}:k", 10_000, never); // the first call takes the shared connection
        long before = BoundedCalls.handOffs();
        // hash tags spread over every master
        for (int i = 0; i < 30; i++) {
            String key = "{t" + i + "-" + UUID.randomUUID().toString().substring(0, 6) + "}:k";
            assertThat(call(executor, script, key, 10_000, never)).containsExactly(key, "v");
        }
        for (HostAndPort node : cluster.nodes()) {
            try (Jedis jedis = new Jedis(node)) {
                jedis.scriptFlush();
            }
        }
        for (int i = 0; i < 10; i++) {
            String key = "{r" + i + "}:k";
            assertThat(call(executor, script, key, 10_000, never)).as("after SCRIPT FLUSH").containsExactly(key, "v");
        }
        assertThat(BoundedCalls.handOffs() - before).as("hand-offs").isZero();

        for (HostAndPort node : cluster.nodes()) {
            try (Jedis jedis = new Jedis(node)) {
                jedis.clientPause(3_000);
            }
        }
        long started = System.nanoTime();
        assertThatThrownBy(() -> call(executor, script, "{paused}:k", 300, () -> new IllegalStateException("timed out")))
                .hasMessage("timed out");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("a call of a paused cluster ended after %d ms (deadline 300 ms)%n", tookMs);
        // the deadline + 1.2 s for a 2-core machine under a full build (250 ms of slack failed there): still half
        // the 3 s pause, and far below Lettuce's 10 s command timeout, which a call ignoring its deadline waits out
        assertThat(tookMs).isLessThan(300 + 1_200);
        assertThat(BoundedCalls.handOffs() - before).as("hand-offs").isZero();
    }
}
