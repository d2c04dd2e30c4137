package io.github.idworker.review;

import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same version ABA on the namespace record: a borrow reads the namespace (generation = its ctime) and is
 * held up before its fresh-id transaction; the namespace tree is lost and recreated; the new generation's
 * fresh claims bring the new namespace record back to the version read; the stalled transaction goes through
 * and hands out a slot with the OLD generation's floor, below a high-water a holder of that slot id in the lost
 * tree may still issue up to.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RecreatedNamespaceAbaTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration SKEW = Duration.ofMillis(100);

    private final String base = "/review-nsaba-" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "nsaba";
    private final StallingZookeeperFactory stalls = new StallingZookeeperFactory();
    private CuratorFramework operator;
    private CuratorFramework clientOld;
    private CuratorFramework clientC;
    private CuratorFramework clientB;

    @AfterEach
    void close() throws Exception {
        stalls.release();
        operator.delete().deletingChildrenIfNeeded().forPath(base);
        for (CuratorFramework c : new CuratorFramework[]{clientOld, clientC, clientB, operator}) {
            c.close();
        }
    }

    private LeaseRequest request() {
        return new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(), SKEW, "h", 1,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
    }

    @Test
    void aFreshClaimHeldUpAcrossALostNamespaceUsesTheOldGenerationFloor() throws Exception {
        String cs = ReviewZookeeper.server().getConnectString();
        operator = ReviewZookeeper.client(cs);
        clientOld = ReviewZookeeper.client(cs);
        clientC = stalls.client(cs, 20_000);
        clientB = ReviewZookeeper.client(cs);
        ZookeeperSequenceManager old = new ZookeeperSequenceManager(clientOld, base, Duration.ofSeconds(30));
        ZookeeperSequenceManager c = new ZookeeperSequenceManager(clientC, base, Duration.ofSeconds(30));
        ZookeeperSequenceManager b = new ZookeeperSequenceManager(clientB, base, Duration.ofSeconds(30));
        String nsPath = old.namespacePath(ns);

        WorkerLease l0 = old.borrow(request());
        WorkerLease l1 = old.borrow(request()); // slots 0 and 1 held in the old generation
        Thread.sleep(TTL.toMillis() + SKEW.toMillis() + 200); // the old generation's floor is in the past now
        old.renew(l0, System.currentTimeMillis() + TTL.toMillis());
        old.renew(l1, System.currentTimeMillis() + TTL.toMillis());
        int versionReadByC = ReviewZookeeper.version(operator, nsPath);

        stalls.arm(ops -> {
            return StallingZookeeperFactory.has(ops, OpCode.setData)
                    && StallingZookeeperFactory.has(ops, OpCode.create) && ops.get(0).getPath().equals(nsPath);
        });
        CompletableFuture<WorkerLease> claimOfC = CompletableFuture.supplyAsync(() -> c.borrow(request()));
        assertThat(stalls.awaitTrapped(20)).isTrue(); // C read slots=2 at that version: it goes for fresh id 2

        WorkerLease oldHolderOf2 = old.borrow(request()); // slot 2 in the old generation, still issuing
        oldHolderOf2 = old.renew(oldHolderOf2, System.currentTimeMillis() + TTL.toMillis());
        assertThat(oldHolderOf2.workerId()).isEqualTo(2);

        operator.delete().deletingChildrenIfNeeded().forPath(nsPath); // the namespace tree is lost
        while (ReviewZookeeper.version(operator, nsPath) < versionReadByC) {
            b.borrow(request()); // the new generation's fresh claims
        }
        stalls.release();
        WorkerLease leaseC = claimOfC.get(30, TimeUnit.SECONDS);
        System.out.printf("old generation: slot 2 held up to %d; new namespace created at %s; C got slot %d with floor %d%n",
                oldHolderOf2.highWaterMillis(), operator.checkExists().forPath(nsPath).getCtime(), leaseC.workerId(),
                leaseC.floorMillis());
        if (leaseC.workerId() == 2) {
            assertThat(leaseC.floorMillis()).as("C's floor on slot 2 vs the lost generation's holder of slot 2")
                    .isGreaterThanOrEqualTo(oldHolderOf2.highWaterMillis());
        }
    }
}
