package io.github.idworker.spring.boot.embedded;

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
 * Starts a Redis ({@link EmbeddedRedisProcess}) before any bean exists, for an application that should run with
 * nothing installed (a demo, a sample), and only when {@link #wanted} says so. Guarantees:
 *
 * <ul>
 *   <li>It listens on {@code 127.0.0.1:spring.data.redis.port}; port 0 takes a free one and writes it into the
 *       environment for the Redis connection factory.</li>
 *   <li>It is stopped after every bean is destroyed, so the worker returns its lease to it first; and a JVM that
 *       exits without closing the context (SIGTERM) waits for the context's own stop before it stops Redis,
 *       so nothing is left behind and the lease is still returned.</li>
 * </ul>
 *
 * Registered by the application in {@code META-INF/spring.factories}; requires
 * {@code com.github.codemonstur:embedded-redis} on the class path (an optional dependency of the starter).
 */
public abstract class EmbeddedRedisInitializerSupport
        implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The Redis connection factory's port, which this Redis takes. */
    public static final String PORT_PROPERTY = "spring.data.redis.port";
    /** How long the JVM's shutdown waits for the context to stop Redis itself: longer than a graceful stop. */
    private static final long SHUTDOWN_WAIT_SECONDS = 40;

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisInitializerSupport.class);

    private final String owner;
    private final int defaultPort;

    /**
     * @param owner who this Redis is for, in log lines and errors (e.g. "the idworker demo")
     * @param defaultPort the port when {@code spring.data.redis.port} is not set
     */
    protected EmbeddedRedisInitializerSupport(String owner, int defaultPort) {
        this.owner = owner;
        this.defaultPort = defaultPort;
    }

    /** Whether this start wants the embedded Redis; otherwise the application reaches the Redis it configured. */
    protected abstract boolean wanted(ConfigurableEnvironment environment);

    /** What to do instead when the port is taken, appended to the error. */
    protected String instead() {
        return "";
    }

    @Override
    public final void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!wanted(environment)) {
            return;
        }
        int configured = environment.getProperty(PORT_PROPERTY, Integer.class, defaultPort);
        int port = configured == 0 ? freePort() : configured;
        environment.getPropertySources().addFirst(new MapPropertySource("embeddedRedis",
                Map.of("spring.data.redis.host", "127.0.0.1", PORT_PROPERTY, port)));
        EmbeddedRedisProcess server;
        try {
            server = EmbeddedRedisProcess.start(port);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Cannot start the embedded Redis of " + owner + " on 127.0.0.1:" + port
                    + " (is the port in use?). Set " + PORT_PROPERTY + "=0 to use a free port" + instead() + ": "
                    + e.getMessage(), e);
        }
        log.info("Embedded Redis of {} listens on 127.0.0.1:{}", owner, port);
        // the first disposable bean registered is destroyed last: after the worker has returned its lease
        CountDownLatch stopped = new CountDownLatch(1);
        ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("embeddedRedisServer", () -> {
            server.stop();
            stopped.countDown();
            log.info("Embedded Redis on 127.0.0.1:{} stopped", server.port());
        });
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
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on loopback for the embedded Redis", e);
        }
    }
}
