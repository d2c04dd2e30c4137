package io.github.idworker.spring.boot.autoconfigure;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The longest one script call of a {@link SpringRedisScriptExecutor} can block its thread over a
 * {@link JedisConnectionFactory}, derived from the factory's {@link JedisClientConfiguration}; unknown (negative)
 * when the configuration does not bound it. Loaded only for a Jedis factory, so Jedis's classes stay optional.
 *
 * <p>One call borrows a connection and sends {@code EVALSHA}, and {@code EVAL} after {@code NOSCRIPT}, on it. So
 * it blocks at most:
 * <ul>
 *   <li>the pool's borrow wait ({@code maxWait}; unknown when the pool blocks without a limit, which is the pool's
 *       default and Spring Boot's unless {@code spring.data.redis.jedis.pool.max-wait} is set); none without
 *       pooling;</li>
 *   <li>a new connection: the connect timeout, then one read timeout per handshake round trip — counted as three:
 *       {@code HELLO}/{@code AUTH}, {@code CLIENT SETINFO}, {@code SELECT};</li>
 *   <li>one read timeout for a pool's validation {@code PING} on create and one on borrow, when switched on;</li>
 *   <li>two read timeouts: {@code EVALSHA} and {@code EVAL};</li>
 *   <li>with pooling, a connection returned broken (e.g. after a read timeout) is replaced by the pool on the same
 *       thread before the error comes back: a new connection's time once more.</li>
 * </ul>
 * Unknown as well: Redis Cluster (a failed attempt renews the slot map by asking the known nodes one after another,
 * each within its own timeouts, and retries up to {@code maxRedirects} times, so the configuration gives no bound
 * short of the node count), Sentinel (the pool retries while the master changes), and a factory with a client
 * customizer (it may change the timeouts after the configuration was read).
 */
final class JedisCallBound {

    /** Handshake round trips of a new Jedis connection, counted generously. */
    private static final int HANDSHAKE_ROUND_TRIPS = 3;

    /**
     * {@link JedisClientConfiguration}'s customizer getters, looked up rather than called: Spring Data Redis 4.1
     * (Spring Boot 4.1) has them, 4.0 (Spring Boot 4.0) has no customizers, and the starter runs on both.
     */
    static final List<String> CUSTOMIZER_GETTERS = List.of("getClientConfigCustomizer", "getClientCustomizer");

    private static final List<Method> CUSTOMIZERS = customizerGetters();

    private JedisCallBound() {
    }

    /** The bound in nanoseconds, or -1 when unknown (see the class comment). */
    static long maxCallNanos(Object connectionFactory) {
        if (!(connectionFactory instanceof JedisConnectionFactory factory)) {
            return -1;
        }
        if (factory.isRedisClusterAware() || factory.isRedisSentinelAware()) {
            return -1;
        }
        JedisClientConfiguration config = factory.getClientConfiguration();
        if (customized(config)) {
            return -1;
        }
        Duration connect = config.getConnectTimeout();
        Duration read = config.getReadTimeout();
        if (!positive(connect) || !positive(read)) {
            return -1; // 0 means "wait forever" to a socket
        }
        long readNanos = read.toNanos();
        long newConnection = connect.toNanos() + HANDSHAKE_ROUND_TRIPS * readNanos;
        long nanos = newConnection + 2 * readNanos;
        if (config.isUsePooling()) {
            nanos += newConnection; // the replacement of a broken connection
            // a raw type on Spring Data Redis 4.0, a wildcard one on 4.1: the cast compiles on both
            Optional<GenericObjectPoolConfig<?>> pool = config.getPoolConfig().map(c -> (GenericObjectPoolConfig<?>) c);
            GenericObjectPoolConfig<?> p = pool.isPresent() ? pool.get() : new GenericObjectPoolConfig<>();
            if (p.getBlockWhenExhausted()) {
                Duration wait = p.getMaxWaitDuration();
                if (wait.isNegative()) {
                    return -1;
                }
                nanos += wait.toNanos();
            }
            nanos += ((p.getTestOnCreate() ? 1 : 0) + (p.getTestOnBorrow() ? 1 : 0)) * readNanos;
        }
        return nanos;
    }

    private static List<Method> customizerGetters() {
        List<Method> getters = new ArrayList<>();
        for (String name : CUSTOMIZER_GETTERS) {
            try {
                getters.add(JedisClientConfiguration.class.getMethod(name));
            } catch (NoSuchMethodException e) {
                // Spring Data Redis 4.0: no such customizer, so none can be set
            }
        }
        return List.copyOf(getters);
    }

    private static boolean customized(JedisClientConfiguration config) {
        for (Method getter : CUSTOMIZERS) {
            try {
                if (getter.invoke(config) instanceof Optional<?> customizer && customizer.isPresent()) {
                    return true;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                return true; // cannot tell: an unknown bound rather than a wrong one
            }
        }
        return false;
    }

    private static boolean positive(Duration d) {
        return d != null && !d.isNegative() && !d.isZero();
    }
}
