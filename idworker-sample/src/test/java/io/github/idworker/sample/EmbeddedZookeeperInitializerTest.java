package io.github.idworker.sample;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** When the sample starts a ZooKeeper server of its own, and when it must not. */
class EmbeddedZookeeperInitializerTest {

    private static String connectStringAfterInit(String... profiles) {
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.getEnvironment().setActiveProfiles(profiles);
            new EmbeddedZookeeperInitializer().initialize(context);
            String connect = context.getEnvironment().getProperty(EmbeddedZookeeperInitializer.CONNECT_STRING_PROPERTY);
            context.refresh(); // then close: stops the server the initializer may have started
            return connect;
        }
    }

    @Test
    void theZookeeperProfileAloneGetsAServerInThisJvm() {
        assertThat(connectStringAfterInit("zookeeper")).isNotBlank();
    }

    @Test
    void besideAProfileOfYourOwnNoPrivateServerHandsOutWorkerIds() {
        // every instance would lease worker id 0 from a server of its own: the starter must fail naming the
        // connect string instead
        assertThat(connectStringAfterInit("zookeeper", "prod")).isNull();
        assertThat(connectStringAfterInit("zookeeper", "external")).isNull();
    }

    @Test
    void withoutTheZookeeperProfileNothingStarts() {
        assertThat(connectStringAfterInit()).isNull();
    }
}
