package io.github.idworker.review;

import org.junit.jupiter.api.Tag;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Brute force on few slots: workers of two "processes" (own Curator clients, own sessions) share a namespace of
 * 2 worker ids, 16 issuing threads in all, while (1) the ZooKeeper server is replaced by an empty one on the same
 * port, and (2) sessions are ended on the server at random. No identifier may be issued twice.
 */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EmptyRestartAndSessionChurnTest {

    private static final int SESSION_MS = 4_000;
    private final List<AbstractIdWorker> workers = new ArrayList<>();
    private final List<CuratorFramework> clients = new ArrayList<>();
    private TestingServer server;

    @AfterEach
    void close() throws Exception {
        workers.forEach(AbstractIdWorker::close);
        clients.forEach(CuratorFramework::close);
        if (server != null) {
            server.close();
        }
    }

    private CuratorFramework client(String cs) {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(cs).sessionTimeoutMs(SESSION_MS)
                .connectionTimeoutMs(2_000).retryPolicy(new RetryNTimes(3, 100)).build();
        c.start();
        clients.add(c);
        return c;
    }

    private AbstractIdWorker worker(CuratorFramework client, String base, String ns) {
        AbstractIdWorker w = new ZookeeperIdWorker(new ZookeeperSequenceManager(client, base, Duration.ofSeconds(2)),
                WorkerOptions.builder()
                        .namespace(ns)
                        .layout(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 1, 12))
                        .leaseTtl(Duration.ofSeconds(1))
                        .heartbeatInterval(Duration.ofMillis(250))
                        .maxSkew(Duration.ofMillis(100))
                        .lossGuard(Duration.ofMillis(1_100))
                        .fenceWait(Duration.ofMillis(300))
                        .clock(MillisClock.SYSTEM)
                        .shutdownHook(false)
                        .build());
        workers.add(w);
        return w;
    }

    private static InstanceSpec spec(int port) throws Exception {
        File dir = Files.createTempDirectory("review-zk-").toFile();
        return new InstanceSpec(dir, port, -1, -1, true, -1, 500, 1_000);
    }

    private static long duplicates(List<Issuer> issuers) {
        long[] all = new long[0];
        for (Issuer i : issuers) {
            long[] ids = i.ids();
            long[] joined = new long[all.length + ids.length];
            System.arraycopy(all, 0, joined, 0, all.length);
            System.arraycopy(ids, 0, joined, all.length, ids.length);
            all = joined;
        }
        return Issuer.common(all, new long[0]);
    }

    private List<Issuer> issue(List<AbstractIdWorker> ws, int threadsEach, long millis) {
        List<Issuer> issuers = new ArrayList<>();
        for (AbstractIdWorker w : ws) {
            for (int t = 0; t < threadsEach; t++) {
                issuers.add(new Issuer(w, millis, "issuer-" + issuers.size()));
            }
        }
        issuers.forEach(Thread::start);
        return issuers;
    }

    private static String summary(List<Issuer> issuers) {
        long issued = 0;
        long refused = 0;
        for (Issuer i : issuers) {
            issued += i.ids().length;
            refused += i.refused;
        }
        return issued + " issued, " + refused + " refused";
    }

    @Test
    void anEmptyServerOnTheSamePortWhileWorkersHoldLeases() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        int port = InstanceSpec.getRandomPort();
        server = new TestingServer(spec(port), true);
        String cs = server.getConnectString();
        String base = "/review-restart";
        AbstractIdWorker p1 = worker(client(cs), base, "r").start();
        AbstractIdWorker p2 = worker(client(cs), base, "r").start();
        List<Issuer> issuers = issue(List.of(p1, p2), 8, 9_000);
        Thread.sleep(1_500);
        server.close();
        server = new TestingServer(spec(port), true); // empty: no snapshot, no log
        for (Issuer i : issuers) {
            i.join();
        }
        long dup = duplicates(issuers);
        System.out.printf("restart empty: %s; switches %d/%d; %d issued twice; last refusal: %s%n", summary(issuers),
                p1.leaseSwitchCount(), p2.leaseSwitchCount(), dup, issuers.get(0).lastRefusal);
        assertThat(dup).isZero();
    }

    @Test
    void sessionsEndedAtRandomOnTwoSlots() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        server = new TestingServer(spec(InstanceSpec.getRandomPort()), true);
        String cs = server.getConnectString();
        String base = "/review-churn";
        List<CuratorFramework> procs = List.of(client(cs), client(cs));
        List<AbstractIdWorker> ws = new ArrayList<>();
        for (CuratorFramework c : procs) {
            ws.add(worker(c, base, "churn").start());
        }
        List<Issuer> issuers = issue(ws, 8, 10_000);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(9);
        int ended = 0;
        while (System.nanoTime() < end) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(100, 800));
            expireSession(cs, procs.get(ThreadLocalRandom.current().nextInt(procs.size())));
            ended++;
        }
        for (Issuer i : issuers) {
            i.join();
        }
        long dup = duplicates(issuers);
        System.out.printf("session churn: %d sessions ended; %s; switches %d/%d; %d issued twice%n", ended,
                summary(issuers), ws.get(0).leaseSwitchCount(), ws.get(1).leaseSwitchCount(), dup);
        assertThat(dup).isZero();
    }

    private static void expireSession(String cs, CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(cs, SESSION_MS, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            connected.await(5, TimeUnit.SECONDS);
        } finally {
            twin.close();
        }
    }
}
