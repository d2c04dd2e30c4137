package io.github.idworker.test.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code ISequenceManager} contract against a 3-master Redis Cluster this test starts on loopback ports
 * ({@link RedisClusterSupport}). Runs with {@code mvn -Preal-services}; needs {@code redis-server} and
 * {@code redis-cli}.
 *
 * <p>One test after another, unlike the kit's other centres: {@link
 * #aStallPausesOnlyTheNodeOfItsNamespaceAndTheClientTimeoutBoundsTheCall} pauses a node that the kit's other tests
 * use too (a CI run saw a borrow beside it time out).
 */
@Tag("real-services")
@Execution(ExecutionMode.SAME_THREAD)
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
        return new RedisSequenceManagerStore(RedisTestClients.cluster(cluster.nodes()), "idworker-test", true);
    }

    @Test
    void namespacesSpreadOverNodesAndEveryKeyOfACallSharesOneClusterSlot() {
        RedisSequenceManagerStore redis = (RedisSequenceManagerStore) store;
        RedisSequenceManager manager = redis.newManager();
        Set<Integer> clusterSlots = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            String ns = newNamespace();
            WorkerLease lease = manager.borrow(new LeaseRequest(ns, 8, UUID.randomUUID().toString(),
                    Duration.ofSeconds(30), System.currentTimeMillis(), Duration.ofMillis(500), "test-host", 42, layout(3).pinned()));
            assertThat(redis.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
            String key = redis.leaseKey(ns);
            assertThat(redis.jedis().exists(key)).as(key).isTrue();
            // the borrow also reads the keys of earlier versions: they must hash to the same slot
            Set<Integer> slotsOfCall = new HashSet<>();
            for (String k : List.of(key, manager.keyOf(ns, "owner"), manager.keyOf(ns, "expires"))) {
                slotsOfCall.add(JedisClusterCRC16.getSlot(k));
            }
            assertThat(slotsOfCall).hasSize(1);
            clusterSlots.addAll(slotsOfCall);
        }
        assertThat(clusterSlots).hasSizeGreaterThan(1);
    }

    @Test
    void aStallPausesOnlyTheNodeOfItsNamespaceAndTheClientTimeoutBoundsTheCall() throws Exception {
        RedisSequenceManagerStore redis = (RedisSequenceManagerStore) store;
        RedisSequenceManager manager = redis.newManager();
        String stalled = newNamespace();
        String elsewhere = newNamespace();
        while (nodeOf(redis, elsewhere).equals(nodeOf(redis, stalled))) {
            elsewhere = newNamespace();
        }
        WorkerLease lease = manager.borrow(request(stalled, 8, System.currentTimeMillis()));
        try (AutoCloseable stall = redis.stall(stalled, lease.workerId())) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> manager.renew(lease, lease.highWaterMillis() + 1_000))
                    .isInstanceOf(CenterUnavailableException.class);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            System.out.printf("stalled renew on the cluster failed after %d ms (socket timeout %d ms)%n",
                    took.toMillis(), RedisTestClients.SOCKET_TIMEOUT.toMillis());
            assertThat(took).isLessThan(RedisTestClients.SOCKET_TIMEOUT.plusSeconds(1));
            assertThat(manager.borrow(request(elsewhere, 8, System.currentTimeMillis())).workerId()).isZero();
        }
        assertThat(manager.renew(lease, lease.highWaterMillis() + 1_000).highWaterMillis())
                .isEqualTo(lease.highWaterMillis() + 1_000);
    }

    /** The id of the node serving the namespace's key: the command is routed by that key. */
    private static String nodeOf(RedisSequenceManagerStore redis, String namespace) {
        Object id = redis.jedis().sendCommand(redis.leaseKey(namespace), Protocol.Command.CLUSTER, "MYID");
        return id instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(id);
    }
}
