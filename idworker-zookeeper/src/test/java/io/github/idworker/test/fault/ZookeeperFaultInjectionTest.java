package io.github.idworker.test.fault;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault tests over one ZooKeeper server this test runs in its JVM (Curator's TestingServer), so it can also
 * stop and restart it, with its data or empty, while the worker processes issue. The server needs no service on
 * the machine, so the default build runs these at the real-services volume (at least 600 000 ids a run from
 * four or more processes) and the real-services profile does not run them again.
 */
class ZookeeperFaultInjectionTest extends AbstractZookeeperFaultInjectionTest {

    private TestingServer server;

    @BeforeEach
    void startZookeeper() throws Exception {
        // test data only: skip the transaction log's fsync on a disk other builds share
        System.setProperty("zookeeper.forceSync", "no");
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, 1_000), true);
    }

    @AfterEach
    void stopZookeeper() throws Exception {
        server.close();
    }

    @Override
    protected String connectString() {
        return server.getConnectString();
    }

    /**
     * The server stops for a second (less than the ttl and the session timeout) and comes back with its data:
     * the workers issue on within their high-water, keep their sessions and worker ids, and renew again.
     */
    @Test
    void zookeeperRestartWithItsDataWhileWorkersIssue() throws Exception {
        currentTest = "ZooKeeper restart";
        List<WorkerProcess> ps = launchAll(4);
        for (WorkerProcess p : ps) {
            p.awaitIssued(rate() / 2, Duration.ofSeconds(30));
        }
        Map<WorkerProcess, Integer> slots = new HashMap<>();
        for (WorkerProcess p : ps) {
            slots.put(p, leasedWorker(p));
        }
        server.stop();
        Thread.sleep(1_000);
        server.restart();

        for (WorkerProcess p : ps) {
            long issued = WorkerProcess.field(p.lastStatus(), "issued");
            p.await(l -> l.startsWith("STATUS") && WorkerProcess.field(l, "issued") > issued + rate(),
                    Duration.ofSeconds(30));
        }
        runUntilEnoughIds();
        stopAll();
        assertNoDuplicates();
        for (WorkerProcess p : ps) {
            assertThat(p.linesStartingWith("LEASE")).as("leases of %s", p.name).isNotEmpty();
        }
    }

    /**
     * The server is replaced by an empty one on the same port while the workers issue, as a wiped ensemble would
     * be. Their sessions are unknown to it, so every renewal finds its lease lost; the namespace is created anew,
     * and its first floor (its creation time + ttl + max-skew) lies above every high-water stored before.
     */
    @Test
    void zookeeperReplacedByAnEmptyServerWhileWorkersIssue() throws Exception {
        currentTest = "ZooKeeper losing all data";
        List<WorkerProcess> ps = launchAll(4);
        for (WorkerProcess p : ps) {
            p.awaitIssued(rate() / 2, Duration.ofSeconds(30));
        }
        int port = server.getPort();
        Map<WorkerProcess, Integer> leaseLinesBefore = new HashMap<>();
        server.close();
        Thread.sleep(500);
        // with the server gone no high-water can rise any more: these are the last ones the holders may issue up to
        long oldHighWater = 0;
        for (WorkerProcess p : ps) {
            oldHighWater = Math.max(oldHighWater, WorkerProcess.field(p.lastStatus(), "hw"));
            leaseLinesBefore.put(p, p.linesStartingWith("LEASE").size());
        }
        long replacedAt = System.currentTimeMillis();
        server = new TestingServer(new InstanceSpec(null, port, -1, -1, true, -1, TICK_MS, 1_000), true);

        for (WorkerProcess p : ps) {
            int before = leaseLinesBefore.get(p);
            p.await(l -> l.startsWith("LEASE") && p.linesStartingWith("LEASE").size() > before, Duration.ofSeconds(60));
            List<String> leases = p.linesStartingWith("LEASE");
            for (String lease : leases.subList(before, leases.size())) {
                long floor = WorkerProcess.field(lease, "floor");
                assertThat(floor).as("floor of a lease borrowed after the data loss").isGreaterThanOrEqualTo(oldHighWater);
                assertThat(floor).isGreaterThanOrEqualTo(replacedAt + TTL_MS);
            }
        }
        runUntilEnoughIds();
        stopAll();
        assertNoDuplicates();
    }
}
