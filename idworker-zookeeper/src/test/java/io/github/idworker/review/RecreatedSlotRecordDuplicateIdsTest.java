package io.github.idworker.review;

import org.junit.jupiter.api.Tag;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RecreatedSlotRecordAbaTest} end to end, with real workers on the system clock: worker A shuts down and its
 * return is held up in its keeper thread after reading the slot record; the record is deleted (operator) and
 * recreated by worker B's borrow; B's claim and renewals bring it back to the version A read; A's return then
 * goes through, frees the slot below B's range and deletes B's ephemeral node; worker C borrows the slot while B
 * still holds its lease. B and C issue with the same worker id in the same milliseconds.
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RecreatedSlotRecordDuplicateIdsTest {

    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration SKEW = Duration.ofMillis(100);

    private final String base = "/review-dup-" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "dup";
    private final StallingZookeeperFactory stalls = new StallingZookeeperFactory();
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<AbstractIdWorker> workers = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        stalls.release();
        workers.forEach(AbstractIdWorker::close);
        CuratorFramework operator = ReviewZookeeper.client(ReviewZookeeper.server().getConnectString());
        operator.delete().deletingChildrenIfNeeded().forPath(base);
        operator.close();
        clients.forEach(CuratorFramework::close);
    }

    private ZookeeperSequenceManager manager(CuratorFramework client) {
        clients.add(client);
        return new ZookeeperSequenceManager(client, base, Duration.ofSeconds(30));
    }

    private AbstractIdWorker worker(ZookeeperSequenceManager m, boolean renewAutomatically) {
        AbstractIdWorker w = new ZookeeperIdWorker(m, WorkerOptions.builder()
                .namespace(ns)
                .layout(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 12))
                .leaseTtl(TTL)
                .heartbeatInterval(Duration.ofMillis(300))
                .maxSkew(SKEW)
                .lossGuard(TTL.plus(SKEW))
                .fenceWait(Duration.ofMillis(200))
                .clock(MillisClock.SYSTEM)
                .renewAutomatically(renewAutomatically)
                .shutdownHook(false)
                .build());
        workers.add(w);
        return w.start();
    }

    @Test
    void aReturnHeldUpAcrossALostRecordLetsTwoWorkersIssueTheSameIds() throws Exception {
        String cs = ReviewZookeeper.server().getConnectString();
        CuratorFramework operator = ReviewZookeeper.client(cs);
        clients.add(operator);
        ZookeeperSequenceManager managerA = manager(stalls.client(cs, 20_000));
        String slot = managerA.slotPath(ns, 0);

        AbstractIdWorker a = worker(managerA, true);
        for (int i = 0; i < 1000; i++) {
            a.nextId();
        }
        Thread.sleep(700); // a few heartbeats
        stalls.arm(ops -> StallingZookeeperFactory.has(ops, OpCode.setData)
                && StallingZookeeperFactory.has(ops, OpCode.delete) && !StallingZookeeperFactory.has(ops, OpCode.create));
        a.close(); // gives up waiting after fence-wait; the keeper thread is still held up with the return
        assertThat(stalls.awaitTrapped(20)).isTrue();
        int versionReadByA = ReviewZookeeper.version(operator, slot);

        operator.delete().forPath(slot); // an operator (or a restore) loses the record
        AbstractIdWorker b = worker(manager(ReviewZookeeper.client(cs)), false);
        while (ReviewZookeeper.version(operator, slot) < versionReadByA) {
            b.renew();
        }
        System.out.println("A read v" + versionReadByA + "; B holds " + b.currentLease() + "; record v"
                + ReviewZookeeper.version(operator, slot));

        stalls.release();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ReviewZookeeper.text(operator, slot).contains("owner=" + b.currentLease().owner())
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("record after A's late return: " + ReviewZookeeper.text(operator, slot));

        // B renewed just before (its high-water is about a ttl ahead) and renews again only at its next heartbeat
        AbstractIdWorker c = worker(manager(ReviewZookeeper.client(cs)), false);
        System.out.println("B holds " + b.currentLease() + "\nC holds " + c.currentLease());

        Issuer ib = new Issuer(b, 300, "issuer-b");
        Issuer ic = new Issuer(c, 300, "issuer-c");
        ib.start();
        ic.start();
        ib.join();
        ic.join();
        long[] idsB = ib.ids();
        long[] idsC = ic.ids();
        long duplicates = Issuer.common(idsB, idsC);
        System.out.printf("B issued %d (refused %d), C issued %d (refused %d): %d identifiers issued twice%n",
                idsB.length, ib.refused, idsC.length, ic.refused, duplicates);
        assertThat(duplicates).as("identifiers issued by both B and C").isZero();
    }
}
