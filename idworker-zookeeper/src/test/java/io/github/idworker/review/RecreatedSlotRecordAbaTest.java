package io.github.idworker.review;

import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attack: a slot record is deleted (operator, bad restore: DESIGN rule 9) while its holder's renewal (or return)
 * has read the record and not yet sent its compare-and-set. The centre recreates the record at version 0; the
 * successor's claim and renewals bring it back to the version the stalled holder read, and the stalled
 * {@code setData(path, data, version)} goes through: ZooKeeper versions restart when a znode is recreated (ABA).
 * The holder's whole stale record (its owner, its lower high-water) replaces the successor's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RecreatedSlotRecordAbaTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration SKEW = Duration.ofMillis(500);

    private final String base = "/review-aba-" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "aba";
    private final StallingZookeeperFactory stalls = new StallingZookeeperFactory();
    private CuratorFramework clientA;
    private CuratorFramework clientB;
    private CuratorFramework clientC;
    private CuratorFramework operator;
    private ZookeeperSequenceManager a;
    private ZookeeperSequenceManager b;
    private ZookeeperSequenceManager c;

    @BeforeEach
    void open() {
        String cs = ReviewZookeeper.server().getConnectString();
        clientA = stalls.client(cs, 20_000);
        clientB = ReviewZookeeper.client(cs);
        clientC = ReviewZookeeper.client(cs);
        operator = ReviewZookeeper.client(cs);
        Duration timeout = Duration.ofSeconds(30);
        a = new ZookeeperSequenceManager(clientA, base, timeout);
        b = new ZookeeperSequenceManager(clientB, base, timeout);
        c = new ZookeeperSequenceManager(clientC, base, timeout);
    }

    @AfterEach
    void close() throws Exception {
        stalls.release();
        operator.delete().deletingChildrenIfNeeded().forPath(base);
        clientA.close();
        clientB.close();
        clientC.close();
        operator.close();
    }

    private LeaseRequest request() {
        return new LeaseRequest(ns, 1, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(), SKEW, "h", 1,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 12).pinned());
    }

    /** C's borrow, or {@code null} when every slot is held (B still holds slot 0): the safe outcome. */
    private WorkerLease borrowOrNull() {
        try {
            return c.borrow(request());
        } catch (WorkerIdExhaustedException e) {
            System.out.println("C found no free slot (B still holds slot 0): " + e.getMessage());
            return null;
        }
    }

    /** B's claim and renewals bring the recreated record back to {@code version}. */
    private WorkerLease successorUpToVersion(int version) throws Exception {
        String slot = b.slotPath(ns, 0);
        WorkerLease lease = b.borrow(request());
        assertThat(lease.workerId()).isZero();
        while (ReviewZookeeper.version(operator, slot) < version) {
            lease = b.renew(lease, Math.max(lease.highWaterMillis(), System.currentTimeMillis() + TTL.toMillis()));
        }
        return lease;
    }

    @Test
    void aStalledRenewalOverwritesTheSuccessorOfARecreatedRecord() throws Exception {
        String slot = a.slotPath(ns, 0);
        WorkerLease leaseA = a.borrow(request());
        for (int i = 0; i < 3; i++) {
            leaseA = a.renew(leaseA, System.currentTimeMillis() + TTL.toMillis());
        }
        int versionReadByA = ReviewZookeeper.version(operator, slot);

        // A's heartbeat reads the record, then its thread is held up before the compare-and-set goes out
        stalls.arm(ops -> StallingZookeeperFactory.has(ops, OpCode.check));
        WorkerLease stale = leaseA;
        CompletableFuture<Object> renewalOfA = CompletableFuture.supplyAsync(() -> {
            try {
                return a.renew(stale, System.currentTimeMillis() + TTL.toMillis());
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(stalls.awaitTrapped(20)).isTrue();

        operator.delete().forPath(slot);                         // the record is lost
        WorkerLease leaseB = successorUpToVersion(versionReadByA); // repaired, claimed and renewed by B
        System.out.printf("A read v%d; B holds slot 0 with (%d, %d], record now v%d: %s%n", versionReadByA,
                leaseB.floorMillis(), leaseB.highWaterMillis(), ReviewZookeeper.version(operator, slot),
                ReviewZookeeper.text(operator, slot));

        stalls.release();
        Object outcomeA = renewalOfA.get(30, TimeUnit.SECONDS);
        System.out.println("A's stalled renewal returned: " + outcomeA);
        System.out.println("record after it: " + ReviewZookeeper.text(operator, slot));

        // the consequence, with nobody doing anything wrong from here on: A believes it holds slot 0 and returns
        // it at the last timestamp it could issue; the next borrower's floor is then below B's range
        if (outcomeA instanceof WorkerLease renewedA) {
            a.giveBack(renewedA, leaseA.highWaterMillis());
        }
        WorkerLease leaseC = borrowOrNull();
        assertThat(outcomeA).as("A's renewal of a record that was lost and reclaimed by B")
                .isInstanceOf(LeaseLostException.class);
        if (leaseC == null) {
            return;
        }
        System.out.printf("C claimed slot %d with floor %d; B was granted up to %d%n", leaseC.workerId(),
                leaseC.floorMillis(), leaseB.highWaterMillis());
        assertThat(leaseC.floorMillis()).as("C's floor vs the high-water B stored and may issue up to")
                .isGreaterThanOrEqualTo(leaseB.highWaterMillis());
    }

    @Test
    void aStalledReturnFreesTheSlotOfTheSuccessorOfARecreatedRecord() throws Exception {
        String slot = a.slotPath(ns, 0);
        WorkerLease leaseA = a.borrow(request());
        for (int i = 0; i < 3; i++) {
            leaseA = a.renew(leaseA, System.currentTimeMillis() + TTL.toMillis());
        }
        int versionReadByA = ReviewZookeeper.version(operator, slot);

        // A shuts down: its return reads the record, then its thread is held up before the transaction goes out
        stalls.arm(ops -> StallingZookeeperFactory.has(ops, OpCode.setData)
                && StallingZookeeperFactory.has(ops, OpCode.delete) && !StallingZookeeperFactory.has(ops, OpCode.create));
        WorkerLease stale = leaseA;
        long lastIssuedByA = leaseA.floorMillis() + 1;
        CompletableFuture<Void> returnOfA = CompletableFuture.runAsync(() -> a.giveBack(stale, lastIssuedByA));
        assertThat(stalls.awaitTrapped(20)).isTrue();

        operator.delete().forPath(slot);
        WorkerLease leaseB = successorUpToVersion(versionReadByA);
        System.out.printf("A read v%d; B holds slot 0 with (%d, %d]; live node of B: %s%n", versionReadByA,
                leaseB.floorMillis(), leaseB.highWaterMillis(), ReviewZookeeper.text(operator, b.livePath(ns, 0)));

        stalls.release();
        returnOfA.get(30, TimeUnit.SECONDS);
        System.out.println("record after A's return: " + ReviewZookeeper.text(operator, slot)
                + "; live node: " + ReviewZookeeper.text(operator, b.livePath(ns, 0)));

        // B still holds its lease (it renews only every heartbeat); C borrows now
        WorkerLease leaseC = borrowOrNull();
        if (leaseC == null) {
            return;
        }
        System.out.printf("C claimed slot %d with floor %d while B holds (%d, %d]%n", leaseC.workerId(),
                leaseC.floorMillis(), leaseB.floorMillis(), leaseB.highWaterMillis());
        assertThat(leaseC.floorMillis()).as("C's floor vs the high-water B holds")
                .isGreaterThanOrEqualTo(leaseB.highWaterMillis());
    }
}
