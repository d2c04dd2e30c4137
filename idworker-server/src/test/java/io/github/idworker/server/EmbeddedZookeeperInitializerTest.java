package io.github.idworker.server;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** When the server starts a ZooKeeper server of its own, and when it must not. */
class EmbeddedZookeeperInitializerTest {

    private static String connectStringAfterInit(String centre, String... profiles) {
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.getEnvironment().setActiveProfiles(profiles);
            if (centre != null) {
                context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                        Map.of(IdWorkerServerApplication.CENTRE, centre)));
            }
            new EmbeddedZookeeperInitializer().initialize(context);
            String connect = context.getEnvironment().getProperty(EmbeddedZookeeperInitializer.CONNECT_STRING_PROPERTY);
            context.refresh(); // then close: stops the server the initializer may have started
            return connect;
        }
    }

    @Test
    void theDemoWithTheZookeeperCentreGetsAServerInThisJvm() {
        assertThat(connectStringAfterInit("zookeeper", "demo")).isNotBlank();
        assertThat(connectStringAfterInit("ZooKeeper", "demo", "extra")).isNotBlank();
    }

    @Test
    void withoutTheDemoNoPrivateServerHandsOutWorkerIds() {
        // every instance would lease worker id 0 from a server of its own: the starter must fail naming the
        // connect string instead
        assertThat(connectStringAfterInit("zookeeper")).isNull();
        assertThat(connectStringAfterInit("zookeeper", "prod")).isNull();
    }

    @Test
    void withAnotherCentreNothingStarts() {
        assertThat(connectStringAfterInit(null, "demo")).isNull();
        assertThat(connectStringAfterInit("redis", "demo")).isNull();
    }
}
