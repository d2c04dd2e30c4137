package io.github.idworker.test.redis;

import redis.clients.jedis.UnifiedJedis;
import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One embedded Redis ({@code com.github.codemonstur:embedded-redis}) per test JVM, on a free loopback port,
 * without persistence; started by the first caller and stopped when the JVM exits.
 */
public final class EmbeddedRedisSupport {

    private static RedisServer server;
    private static int port;

    private EmbeddedRedisSupport() {
    }

    /** The port of the running embedded Redis, starting it on first use. */
    public static synchronized int port() {
        if (server == null) {
            int p = RedisClusterSupport.freePort();
            try {
                RedisServer s = RedisServer.newRedisServer()
                        .port(p)
                        .bind("127.0.0.1")
                        .setting("save \"\"")
                        .setting("appendonly no")
                        .build();
                s.start();
                server = s;
                port = p;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded Redis on port " + p, e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(EmbeddedRedisSupport::stop, "embedded-redis-stop"));
        }
        return port;
    }

    /** A new pooled client of the embedded Redis, with {@link RedisTestClients}' timeouts; the caller closes it. */
    public static UnifiedJedis newClient() {
        return RedisTestClients.standalone("127.0.0.1", port());
    }

    private static synchronized void stop() {
        if (server != null) {
            try {
                server.stop();
            } catch (IOException ignored) {
                // the JVM is exiting; the process dies with it
            }
            server = null;
        }
    }
}
