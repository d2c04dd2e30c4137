package io.github.idworker.test.redis;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.Set;

/**
 * Jedis clients of the Redis stores under test, with the timeouts that bound every centre call: a call to a
 * paused or unreachable Redis fails after {@link #SOCKET_TIMEOUT}, on a cluster too (no retry beyond it).
 */
public final class RedisTestClients {

    /** How long one call may wait for Redis's answer before it fails. */
    public static final Duration SOCKET_TIMEOUT = Duration.ofMillis(1_500);

    private static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis((int) SOCKET_TIMEOUT.toMillis())
            .socketTimeoutMillis((int) SOCKET_TIMEOUT.toMillis())
            .build();

    private RedisTestClients() {
    }

    /** A pooled client of one server; the caller closes it. */
    public static UnifiedJedis standalone(String host, int port) {
        return RedisClient.builder().hostAndPort(host, port).clientConfig(CONFIG).build();
    }

    /**
     * A cluster client that gives up once {@link #SOCKET_TIMEOUT} has passed, instead of Jedis's default of five
     * attempts of one socket timeout each; the caller closes it.
     */
    public static UnifiedJedis cluster(Set<HostAndPort> nodes) {
        return new JedisCluster(nodes, CONFIG, 3, SOCKET_TIMEOUT);
    }
}
