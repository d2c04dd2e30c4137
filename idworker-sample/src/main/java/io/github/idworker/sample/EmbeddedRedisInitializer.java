package io.github.idworker.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts a Redis server in this JVM (embedded-redis) when no profile is active, before any bean exists, so the
 * sample runs with nothing installed. Registered in {@code META-INF/spring.factories}; not part of what a team
 * copies, whose service uses the Redis of its {@code spring.data.redis.*}.
 *
 * <ul>
 *   <li>Only without a profile: profile {@code db} needs no Redis, and any profile of your own (say {@code prod})
 *       must reach the Redis you configured, never a private one.</li>
 *   <li>Listens on {@code 127.0.0.1:spring.data.redis.port} (6381 in {@code application.yml}, clear of a local
 *       Redis on 6379 and the ID server's demo on 6380); port 0 takes a free one and tells the connection
 *       factory.</li>
 *   <li>Keeps nothing on disk. Runs as a child process ({@link SampleRedis}) stopped after every bean is
 *       destroyed, also on SIGTERM, so the worker returns its id first. Ctrl+C in a terminal reaches redis-server
 *       too, so there the worker may warn that it could not return its id: harmless, as this Redis forgets
 *       everything when it stops.</li>
 * </ul>
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisInitializer.class);
    private static final String PORT = "spring.data.redis.port";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (environment.getActiveProfiles().length > 0) {
            return;
        }
        int configured = environment.getProperty(PORT, Integer.class, 6381);
        int port = configured == 0 ? freePort() : configured;
        environment.getPropertySources().addFirst(new MapPropertySource("embeddedRedis",
                Map.of("spring.data.redis.host", "127.0.0.1", PORT, port)));
        SampleRedis server;
        try {
            server = SampleRedis.start(port);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Cannot start the sample's embedded Redis on 127.0.0.1:" + port
                    + " (is the port taken?); set " + PORT + "=0 for a free port: " + e.getMessage(), e);
        }
        log.info("Embedded Redis of the idworker sample listens on 127.0.0.1:{}", port);
        // destroyed last, being the first disposable bean: after the worker has returned its lease
        CountDownLatch stopped = new CountDownLatch(1);
        ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("embeddedRedis", () -> {
            server.stop();
            stopped.countDown();
            log.info("Embedded Redis on 127.0.0.1:{} stopped", server.port());
        });
        // a JVM that exits without closing the context must not leave Redis behind; after the context's own stop
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stopped.await(40, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.stop();
        }, "embedded-redis-stop"));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on loopback for the embedded Redis", e);
        }
    }
}
