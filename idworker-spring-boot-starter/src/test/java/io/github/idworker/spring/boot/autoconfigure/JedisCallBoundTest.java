package io.github.idworker.spring.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPoolConfig;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The longest blocking time of a Jedis script call, read from the factory's configuration (never started: nothing
 * connects), and how a {@link SpringRedisScriptExecutor} waits because of it.
 */
class JedisCallBoundTest {

    private static final RedisStandaloneConfiguration SERVER = new RedisStandaloneConfiguration("127.0.0.1", 6390);

    private static JedisPoolConfig pool(long maxWaitMs) {
        JedisPoolConfig pool = new JedisPoolConfig();
        pool.setMaxWait(Duration.ofMillis(maxWaitMs));
        return pool;
    }

    @Test
    void aBoundedPoolCountsItsWaitTwoConnectionsAndBothScriptCommands() {
        JedisConnectionFactory factory = new JedisConnectionFactory(SERVER, JedisClientConfiguration.builder()
                .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(200)).usePooling()
                .poolConfig(pool(50)).build());
        // 50 (pool) + 2 × (100 + 3 × 200) (a new connection, and its replacement) + 2 × 200 (EVALSHA, EVAL)
        assertThat(JedisCallBound.maxCallNanos(factory)).isEqualTo(Duration.ofMillis(1_850).toNanos());
        assertThat(new SpringRedisScriptExecutor(factory).deadlineMode()).isEqualTo("inline");
    }

    @Test
    void withoutPoolingThereIsNeitherWaitNorReplacement() {
        JedisConnectionFactory factory = new JedisConnectionFactory(SERVER, JedisClientConfiguration.builder()
                .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(200)).build());
        assertThat(JedisCallBound.maxCallNanos(factory)).isEqualTo(Duration.ofMillis(100 + 3 * 200 + 2 * 200).toNanos());
    }

    @Test
    void aPoolValidatingOnBorrowCountsItsPing() {
        JedisPoolConfig pool = pool(50);
        pool.setTestOnBorrow(true);
        JedisConnectionFactory factory = new JedisConnectionFactory(SERVER, JedisClientConfiguration.builder()
                .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(200)).usePooling()
                .poolConfig(pool).build());
        assertThat(JedisCallBound.maxCallNanos(factory)).isEqualTo(Duration.ofMillis(1_850 + 200).toNanos());
    }

    /** The defaults (and Spring Boot's unless spring.data.redis.jedis.pool.max-wait is set): no bound. */
    @Test
    void aPoolThatWaitsWithoutALimitHasNoBound() {
        assertThat(JedisCallBound.maxCallNanos(new JedisConnectionFactory(SERVER))).isNegative();
        assertThat(new SpringRedisScriptExecutor(new JedisConnectionFactory(SERVER)).deadlineMode())
                .isEqualTo("pooled-thread");
    }

    @Test
    void clusterSentinelAndCustomizedClientsHaveNoBound() {
        JedisClientConfiguration bounded = JedisClientConfiguration.builder().connectTimeout(Duration.ofMillis(100))
                .readTimeout(Duration.ofMillis(100)).usePooling().poolConfig(pool(50)).build();
        assertThat(JedisCallBound.maxCallNanos(new JedisConnectionFactory(
                new RedisClusterConfiguration(List.of("127.0.0.1:7000")), bounded))).isNegative();
        assertThat(JedisCallBound.maxCallNanos(new JedisConnectionFactory(
                new RedisSentinelConfiguration("mymaster", java.util.Set.of("127.0.0.1:26379")), bounded))).isNegative();
    }

    @Test
    void aCustomizedClientHasNoBound() throws ReflectiveOperationException {
        JedisClientConfiguration.JedisClientConfigurationBuilder builder = JedisClientConfiguration.builder()
                .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(100));
        // customizeClientConfig is Spring Data Redis 4.1's (Spring Boot 4.1); 4.0 has no customizers to test
        java.lang.reflect.Method customize = java.util.Arrays.stream(
                        JedisClientConfiguration.JedisClientConfigurationBuilder.class.getMethods())
                .filter(m -> m.getName().equals("customizeClientConfig")).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(customize != null,
                "Spring Data Redis before 4.1: no client customizers");
        // the customizer's type (JedisClientConfigBuilderCustomizer) is 4.1's too: a proxy stands in for a lambda
        Class<?> customizerType = customize.getParameterTypes()[0];
        Object longer = java.lang.reflect.Proxy.newProxyInstance(customizerType.getClassLoader(),
                new Class<?>[] {customizerType}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == args[0]
                                : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "customizer";
                    }
                    ((redis.clients.jedis.DefaultJedisClientConfig.Builder) args[0]).socketTimeoutMillis(60_000);
                    return null;
                });
        customize.invoke(builder, longer);
        JedisClientConfiguration customized = builder.usePooling().poolConfig(pool(50)).build();
        assertThat(JedisCallBound.maxCallNanos(new JedisConnectionFactory(SERVER, customized))).isNegative();
    }

    @Test
    void lettuceWaitsOnItsFutureUnlessItsConnectionsAreDedicated() {
        assertThat(new SpringRedisScriptExecutor(new LettuceConnectionFactory(SERVER)).deadlineMode())
                .isEqualTo("lettuce-async");
        LettuceConnectionFactory dedicated = new LettuceConnectionFactory(SERVER);
        dedicated.setShareNativeConnection(false);
        assertThat(new SpringRedisScriptExecutor(dedicated).deadlineMode()).isEqualTo("pooled-thread");
    }
}
