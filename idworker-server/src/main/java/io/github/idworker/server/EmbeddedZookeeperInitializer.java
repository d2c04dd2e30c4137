package io.github.idworker.server;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;
import org.springframework.util.StringUtils;

import java.util.Map;

/**
 * Starts a ZooKeeper server in this JVM for profile {@code demo} with {@code idworker.server.centre=zookeeper} when
 * {@code idworker.zookeeper.connect-string} is not set, so the ZooKeeper centre needs no setup either; registered
 * in {@code META-INF/spring.factories}.
 *
 * <ul>
 *   <li>A real server (Curator's {@code TestingServer}) on a free loopback port, with its data in a temporary
 *       directory deleted when it stops; its address goes into {@code idworker.zookeeper.connect-string}.</li>
 *   <li>Never with a connect string given, nor without profile {@code demo}: then the server leases from that ensemble, which every instance
 *       shares. An embedded server is private to one process, so instances started this way do not see each
 *       other's leases: fine for trying the server, never for a deployment.</li>
 *   <li>Stops after every bean is destroyed, so the worker's lease is returned first.</li>
 * </ul>
 */
public class EmbeddedZookeeperInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedZookeeperInitializer.class);
    static final String CONNECT_STRING_PROPERTY = "idworker.zookeeper.connect-string";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (!environment.acceptsProfiles(Profiles.of(EmbeddedRedisInitializer.DEMO_PROFILE))
                || !"zookeeper".equalsIgnoreCase(environment.getProperty(IdWorkerServerApplication.CENTRE, "").trim())
                || StringUtils.hasText(environment.getProperty(CONNECT_STRING_PROPERTY))) {
            // without the demo, a private server would hand worker id 0 to every instance: leave the connect
            // string missing so the starter fails naming it
            return;
        }
        TestingServer server;
        try {
            server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1), true);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start the demo's embedded ZooKeeper; set "
                    + CONNECT_STRING_PROPERTY + " to use your own ensemble: " + e.getMessage(), e);
        }
        environment.getPropertySources().addFirst(new MapPropertySource("embeddedZookeeper",
                Map.of(CONNECT_STRING_PROPERTY, server.getConnectString())));
        log.info("Embedded ZooKeeper for the idworker demo listens on {}", server.getConnectString());
        // the first disposable bean registered is destroyed last: after the worker has returned its lease
        ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("embeddedZookeeperServer", () -> {
            server.close();
            log.info("Embedded ZooKeeper on {} stopped", server.getConnectString());
        });
    }
}
