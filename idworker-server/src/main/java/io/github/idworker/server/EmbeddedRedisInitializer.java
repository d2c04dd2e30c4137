package io.github.idworker.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts a Redis server (the binary embedded-redis ships, {@link DemoRedis}) for profile {@code demo} before any bean exists, so the demo needs no
 * setup. Registered in {@code META-INF/spring.factories}.
 *
 * <ul>
 *   <li>Only with profile {@code demo} active: without it the server uses the Redis of {@code spring.data.redis.*},
 *       so a deployment never ends up on a private Redis of its own.</li>
 *   <li>Listens on {@code 127.0.0.1:spring.data.redis.port} (6380 in {@code application-demo.yml}, clear of a local
 *       Redis on 6379); {@code spring.data.redis.port=0} picks a free port and writes it into the environment
 *       for the Redis connection factory.</li>
 *   <li>Keeps nothing on disk, and stops after every bean is destroyed, so the worker's lease is returned
 *       first.</li>
 * </ul>
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisInitializer.class);
    static final String PORT_PROPERTY = "spring.data.redis.port";
    /** How long the JVM's shutdown waits for the context to stop Redis itself: longer than a graceful stop. */
    private static final long SHUTDOWN_WAIT_SECONDS = 40;
    /** The zero-setup profile. */
    public static final String DEMO_PROFILE = "demo";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!environment.acceptsProfiles(Profiles.of(DEMO_PROFILE))) {
            // without the demo the server must reach the Redis you configured, never a private one that would
            // split nonces, rates and pools
            return;
        }
        int port = environment.getProperty(PORT_PROPERTY, Integer.class, 6380);
        if (port == 0) {
            port = freePort();
        }
        environment.getPropertySources().addFirst(new MapPropertySource("embeddedRedis",
                Map.of("spring.data.redis.host", "127.0.0.1", PORT_PROPERTY, port)));
        DemoRedis server;
        try {
            server = DemoRedis.start(port);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Cannot start the demo's embedded Redis on 127.0.0.1:" + port
                    + " (is the port in use?). Set " + PORT_PROPERTY + "=0 to use a free port, or run without profile "
                    + "'demo' and your own Redis: " + e.getMessage(), e);
        }
        log.info("Embedded Redis for the idworker demo listens on 127.0.0.1:{}", port);
        // the first disposable bean registered is destroyed last: after the worker has returned its lease
        CountDownLatch stopped = new CountDownLatch(1);
        ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("embeddedRedisServer", () -> {
            server.stop();
            stopped.countDown();
            log.info("Embedded Redis on 127.0.0.1:{} stopped", server.port());
        });
        // a JVM that exits without closing the context must not leave the Redis process behind: this hook waits
        // for the context's own stop (which returns the worker id first), and stops Redis itself only after that
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stopped.await(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.stop();
        }, "embedded-redis-stop"));
    }

    /** A port nobody listens on now, on loopback. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port for the embedded Redis", e);
        }
    }
}
