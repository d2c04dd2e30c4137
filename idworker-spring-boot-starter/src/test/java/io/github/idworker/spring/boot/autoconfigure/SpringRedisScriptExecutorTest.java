package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.redis.LuaScript;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The spring-data-redis script executor against a real Redis server. */
class SpringRedisScriptExecutorTest {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private JedisConnectionFactory jedis(int port) {
        JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        toClose.add(factory::destroy);
        return factory;
    }

    @Test
    void runsScriptsByShaAndReloadsThemAfterAFlush() {
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(jedis(EmbeddedRedis.port()));
        LuaScript script = LuaScript.of("echo-" + TestNames.namespace(),
                "return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1, {'nested'}}");
        List<Object> reply = executor.execute(script, List.of("{t}:k"), List.of("hello", "41"));
        assertThat(reply).containsExactly("{t}:k", "hello", 42L, List.of("nested"));
        try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
            assertThat(jedis.scriptExists(script.sha1())).as("cached under the SHA-1 LuaScript computed").isTrue();
            jedis.scriptFlush();
        }
        assertThat(executor.execute(script, List.of("{t}:k"), List.of("again", "1")))
                .containsExactly("{t}:k", "again", 2L, List.of("nested"));
    }

    private LettuceConnectionFactory lettuce(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        toClose.add(factory::destroy);
        return factory;
    }

    /** The segment scripts answer a bare integer (lock, unlock); every reply shape comes back as a list. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jedis", "lettuce"})
    void everyReplyShapeComesBackAsAList(String client) {
        int port = EmbeddedRedis.port();
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(
                client.equals("jedis") ? jedis(port) : lettuce(port));
        String id = TestNames.namespace();
        assertThat(executor.execute(LuaScript.of("int-" + id, "return 1"), List.of("{t}:k"), List.of()))
                .containsExactly(1L);
        assertThat(executor.execute(LuaScript.of("zero-" + id, "return 0"), List.of("{t}:k"), List.of()))
                .containsExactly(0L);
        assertThat(executor.execute(LuaScript.of("str-" + id, "return ARGV[1]"), List.of("{t}:k"), List.of("OK")))
                .containsExactly("OK");
        assertThat(executor.execute(LuaScript.of("nil-" + id, "return nil"), List.of("{t}:k"), List.of())).isEmpty();
        assertThat(executor.execute(LuaScript.of("arr-" + id, "return {'OK', 7, 9}"), List.of("{t}:k"), List.of()))
                .containsExactly("OK", 7L, 9L);
    }

    @Test
    void anUnreachableRedisBecomesCenterUnavailableNamingHostAndPort() {
        int port = EmbeddedRedis.freePort();
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(jedis(port));
        assertThatThrownBy(() -> executor.execute(LuaScript.of("one", "return {1}"), List.of("k"), List.of()))
                .isInstanceOf(CenterUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageContaining("one");
    }

    @Test
    void aScriptErrorBecomesCenterUnavailableNamingTheScript() {
        SpringRedisScriptExecutor executor = new SpringRedisScriptExecutor(jedis(EmbeddedRedis.port()));
        assertThatThrownBy(() -> executor.execute(LuaScript.of("broken", "return redis.call('NOSUCHCOMMAND')"),
                List.of("k"), List.of()))
                .isInstanceOf(CenterUnavailableException.class)
                .hasMessageContaining("broken")
                .hasMessageContaining("127.0.0.1:" + EmbeddedRedis.port());
    }

    @Test
    void namesClusterNodesForAClusteredFactory() {
        RedisClusterConfiguration cluster = new RedisClusterConfiguration(List.of("10.0.0.1:7000", "10.0.0.2:7001"));
        // never started: only its configuration is read
        assertThat(new SpringRedisScriptExecutor(new JedisConnectionFactory(cluster)).endpoint())
                .startsWith("cluster").contains("10.0.0.1:7000").contains("10.0.0.2:7001");
        assertThat(new SpringRedisScriptExecutor(new LettuceConnectionFactory(cluster)).endpoint())
                .startsWith("cluster").contains("10.0.0.1:7000").contains("10.0.0.2:7001");
    }

    @Test
    void namesHostAndPortForLettuceToo() {
        LettuceConnectionFactory lettuce = new LettuceConnectionFactory(new RedisStandaloneConfiguration("example.test", 6390));
        assertThat(new SpringRedisScriptExecutor(lettuce).endpoint()).isEqualTo("example.test:6390");
    }
}
