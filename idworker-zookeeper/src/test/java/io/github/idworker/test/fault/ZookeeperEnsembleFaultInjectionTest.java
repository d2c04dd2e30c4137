package io.github.idworker.test.fault;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault tests with the real-services volume (at least 600 000 ids a run, four or more processes) over a
 * three-node ZooKeeper ensemble in the test JVM (Curator's TestingCluster: three real quorum peers), plus the
 * ensemble's own fault: its leader dies while the workers issue.
 */
@Tag("real-services")
class ZookeeperEnsembleFaultInjectionTest extends AbstractZookeeperFaultInjectionTest {

    private TestingCluster cluster;

    @BeforeEach
    void startEnsemble() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, 1_000));
        }
        cluster = new TestingCluster(specs);
        cluster.start();
        awaitLeader(Duration.ofSeconds(30));
    }

    @AfterEach
    void stopEnsemble() throws Exception {
        cluster.close();
    }

    @Override
    protected String connectString() {
        return cluster.getConnectString();
    }

    /**
     * The leader dies while four workers issue. Until the followers elect a new one no write succeeds, so no
     * renewal does: the workers issue on within the high-water they stored and fence themselves only if the
     * election outlasts it; then they renew through the new leader and carry on, the dead peer rejoins, and no
     * identifier repeats.
     */
    @Test
    void losingTheLeaderWhileWorkersIssue() throws Exception {
        currentTest = "leader lost";
        List<WorkerProcess> ps = launchAll(4);
        for (WorkerProcess p : ps) {
            p.awaitIssued(rate() / 2, Duration.ofSeconds(30));
        }
        InstanceSpec leader = awaitLeader(Duration.ofSeconds(10));
        Map<WorkerProcess, Long> issuedAtKill = new HashMap<>();
        for (WorkerProcess p : ps) {
            issuedAtKill.put(p, WorkerProcess.field(p.lastStatus(), "issued"));
        }
        long killedAt = System.currentTimeMillis();
        assertThat(cluster.killServer(leader)).isTrue();

        InstanceSpec successor = awaitLeader(Duration.ofSeconds(30));
        long electedAfter = System.currentTimeMillis() - killedAt;
        assertThat(successor).isNotEqualTo(leader);
        for (WorkerProcess p : ps) {
            long before = issuedAtKill.get(p);
            p.await(l -> l.startsWith("STATUS") && WorkerProcess.field(l, "issued") > before + rate(),
                    Duration.ofSeconds(30));
        }
        assertThat(cluster.restartServer(leader)).isTrue();

        runUntilEnoughIds();
        stopAll();
        assertNoDuplicates();
        long fenceTrips = 0;
        for (WorkerProcess p : ps) {
            fenceTrips += WorkerProcess.field(p.lastStatus(), "fenceTrips");
        }
        System.out.printf("FAULT-RESULT %s leader lost: new leader after %d ms, fence trips %d%n",
                getClass().getSimpleName(), electedAfter, fenceTrips);
    }

    /** The peer that answers {@code srvr} with {@code Mode: leader}, waiting for an election to end. */
    private InstanceSpec awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (InstanceSpec spec : cluster.getInstances()) {
                if ("leader".equals(mode(spec))) {
                    return spec;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader within " + timeout);
    }

    /** The peer's role by ZooKeeper's {@code srvr} command (allowed by default), or {@code ""} when it is down. */
    private static String mode(InstanceSpec spec) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", spec.getPort()), 500);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(1));
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("Mode: ")) {
                    return line.substring(6).trim();
                }
            }
        } catch (Exception e) {
            return "";
        }
        return "";
    }
}
