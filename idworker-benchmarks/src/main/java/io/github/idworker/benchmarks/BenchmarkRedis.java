package io.github.idworker.benchmarks;

import io.github.idworker.redis.JedisScriptExecutor;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/**
 * The Redis the Redis benchmarks talk to: the local one on {@code 127.0.0.1:6379} when something answers
 * {@code PING} there, otherwise an embedded Redis (embedded-redis, no persistence) started on a free loopback
 * port for this benchmark JVM and stopped at its end. {@code -Didworker.bench.redis=host:port} names another one.
 * Which one ran is printed with each trial, since the figures depend on it.
 *
 * <p>The clients are configured as the documentation of {@link JedisScriptExecutor} asks for a client whose calls
 * run on the caller's thread: a pool that waits at most {@value #POOL_WAIT_MS} ms for a connection, connect and
 * socket timeouts of {@value #TIMEOUT_MS} ms, hence one command blocks at most
 * {@code w + 2(c + s) + s} = {@link #MAX_CALL_TIME}, declared to the executors ({@link #executor}). That is below
 * the sequences' and serials' {@code max-wait} (3 s) and the pool benchmark's (raised to 3 s from the default 1 s),
 * so every issuing call runs on its caller's thread, as {@code INCR} and {@code LPOP} do through the same client.
 * The borrow wait is long enough for 64 threads sharing the 8 connections on a 2-core machine.
 */
final class BenchmarkRedis implements AutoCloseable {

    private static final String DEFAULT_HOST = "127.0.0.1";
    static final int POOL_WAIT_MS = 500;
    static final int TIMEOUT_MS = 250;
    /** The longest one command through {@link #newClient()} can block its thread. */
    static final Duration MAX_CALL_TIME = Duration.ofMillis(POOL_WAIT_MS + 2 * (TIMEOUT_MS + TIMEOUT_MS) + TIMEOUT_MS);
    private static final int DEFAULT_PORT = 6379;

    final String host;
    final int port;
    final String description;
    private final @Nullable RedisServer embedded;

    private BenchmarkRedis(String host, int port, String description, @Nullable RedisServer embedded) {
        this.host = host;
        this.port = port;
        this.description = description;
        this.embedded = embedded;
    }

    /** Connects to the configured or local Redis, or starts an embedded one. */
    static BenchmarkRedis open() {
        String configured = System.getProperty("idworker.bench.redis");
        String host = DEFAULT_HOST;
        int port = DEFAULT_PORT;
        if (configured != null && !configured.isBlank()) {
            int colon = configured.lastIndexOf(':');
            host = configured.substring(0, colon);
            port = Integer.parseInt(configured.substring(colon + 1));
        }
        if (answers(host, port)) {
            return new BenchmarkRedis(host, port, "Redis " + version(host, port) + " at " + host + ":" + port, null);
        }
        if (configured != null && !configured.isBlank()) {
            throw new IllegalStateException("no Redis answers at " + configured + " (-Didworker.bench.redis)");
        }
        int free = freePort();
        try {
            RedisServer server = RedisServer.newRedisServer().port(free).bind(DEFAULT_HOST)
                    .setting("save \"\"").setting("appendonly no").build();
            server.start();
            return new BenchmarkRedis(DEFAULT_HOST, free, "embedded Redis " + version(DEFAULT_HOST, free) + " at "
                    + DEFAULT_HOST + ":" + free + " (nothing answered on " + DEFAULT_HOST + ":" + DEFAULT_PORT + ")", server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start an embedded Redis on port " + free, e);
        }
    }

    /**
     * A new pooled client (up to 8 connections, lent in the order they were asked for) with the timeouts of the
     * class comment; the caller closes it.
     */
    UnifiedJedis newClient() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxWait(Duration.ofMillis(POOL_WAIT_MS));
        // first come, first served: 64 threads over 8 connections, unfairly served, let some wait past the bound
        pool.setFairness(true);
        return RedisClient.builder().hostAndPort(host, port).poolConfig(pool)
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(TIMEOUT_MS)
                        .socketTimeoutMillis(TIMEOUT_MS).build()).build();
    }

    /** An executor over {@code client} (from {@link #newClient()}) that knows its {@link #MAX_CALL_TIME}. */
    JedisScriptExecutor executor(UnifiedJedis client) {
        return new JedisScriptExecutor(client, host + ":" + port, MAX_CALL_TIME);
    }

    private static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 300);
        } catch (IOException e) {
            return false;
        }
        try (UnifiedJedis jedis = RedisClient.create(host, port)) {
            return "PONG".equals(jedis.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String version(String host, int port) {
        try (UnifiedJedis jedis = RedisClient.create(host, port)) {
            for (String line : jedis.info("server").split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).trim();
                }
            }
        } catch (RuntimeException ignored) {
            // the version only decorates the description
        }
        return "?";
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (embedded != null) {
            try {
                embedded.stop();
            } catch (IOException ignored) {
                // the JVM is about to exit
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
