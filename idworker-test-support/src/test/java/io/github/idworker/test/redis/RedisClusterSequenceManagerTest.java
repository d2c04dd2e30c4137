package io.github.idworker.test.redis;

import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.RedisSequenceManager;
import io.github.idworker.test.AbstractSequenceManagerContractTest;
import io.github.idworker.test.SequenceManagerStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ISequenceManager} contract against a 3-master Redis Cluster this test starts on loopback ports
 * ({@link RedisClusterSupport}). Runs with {@code mvn -Preal-services}; needs {@code redis-server} and
 * {@code redis-cli}.
 */
@Tag("real-services")
class RedisClusterSequenceManagerTest extends AbstractSequenceManagerContractTest {

    private static RedisClusterSupport cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisClusterSupport.startCluster();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected SequenceManagerStore createStore() {
        return new RedisSequenceManagerStore(cluster.newClient(), "idworker-test", true);
    }

    @Test
    void everyKeyOfANamespaceIsInOneClusterSlotAndNamespacesSpreadOverNodes() {
        RedisSequenceManagerStore redis = (RedisSequenceManagerStore) store;
        RedisSequenceManager manager = redis.newManager();
        Set<Integer> clusterSlots = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            String ns = newNamespace();
            WorkerLease lease = manager.borrow(new LeaseRequest(ns, 8, UUID.randomUUID().toString(),
                    Duration.ofSeconds(30), System.currentTimeMillis(), Duration.ofMillis(500), "test-host", 42));
            assertThat(redis.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
            Set<Integer> slotsOfNamespace = new HashSet<>();
            for (String part : RedisSequenceManagerStore.PARTS) {
                String key = redis.keyOf(ns, part);
                assertThat(redis.jedis().exists(key)).as(key).isTrue();
                slotsOfNamespace.add(JedisClusterCRC16.getSlot(key));
            }
            assertThat(slotsOfNamespace).hasSize(1);
            clusterSlots.addAll(slotsOfNamespace);
        }
        assertThat(clusterSlots).hasSizeGreaterThan(1);
    }
}
