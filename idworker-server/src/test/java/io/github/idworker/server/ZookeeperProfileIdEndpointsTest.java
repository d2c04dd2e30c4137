package io.github.idworker.server;

import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.server.centre=zookeeper} in profile {@code demo} without a connect string: a ZooKeeper server started in the JVM, the
 * {@code zookeeperIdWorker} leasing from it; the other features as in the default profile.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=3s", "idworker.lease.max-skew=500ms", "idworker.lease.loss-guard=3500ms", "idworker.zookeeper.operation-timeout=900ms",
        "idworker.server.centre=zookeeper"})
class ZookeeperProfileIdEndpointsTest extends AbstractIdEndpointsTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    ConfigurableEnvironment environment;

    @Test
    void theWorkerIsTheZookeeperIdWorkerOverTheEmbeddedZookeeper() throws Exception {
        assertThat(worker).isInstanceOf(ZookeeperIdWorker.class).isSameAs(context.getBean("zookeeperIdWorker"));
        assertThat(context.containsBean("redisIdWorker")).isFalse();
        assertThat(environment.getPropertySources().contains("embeddedZookeeper")).as("embedded ZooKeeper started").isTrue();
        assertThat(environment.getPropertySources().contains("embeddedRedis")).as("embedded Redis started").isTrue();

        ZookeeperSequenceManager manager = context.getBean("zookeeperSequenceManager", ZookeeperSequenceManager.class);
        CuratorFramework client = manager.client();
        String record = new String(client.getData().forPath(
                manager.slotPath(worker.namespace(), worker.currentLease().workerId())), StandardCharsets.UTF_8);
        assertThat(record).contains("owner=" + worker.currentLease().owner());
        assertThat(client.checkExists().forPath(manager.livePath(worker.namespace(), worker.currentLease().workerId())))
                .as("the holder's ephemeral node").isNotNull();
    }
}
