package io.github.idworker.spring.boot.autoconfigure;

import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * One real Redis server (embedded-redis) per test JVM on a free loopback port, started on first use and stopped
 * when the JVM exits.
 */
final class EmbeddedRedis {

    private static RedisServer server;
    private static int port;

    private EmbeddedRedis() {
    }

    /** The port of the running server; starts it on first call. */
    static synchronized int port() {
        if (server == null) {
            port = freePort();
            try {
                RedisServer s = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
                        .setting("save \"\"").setting("appendonly no").build();
                s.start();
                server = s;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded Redis on port " + port, e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }, "embedded-redis-stop"));
        }
        return port;
    }

    /** A loopback port nothing listens on (it was free a moment ago). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
