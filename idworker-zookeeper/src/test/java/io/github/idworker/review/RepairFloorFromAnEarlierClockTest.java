package io.github.idworker.review;

import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attack on rule 9's floor: a borrow takes the centre's {@code now} from its clock write at the start of the round,
 * but in a namespace with more slots than its hint it reads the remaining slot records in a second round trip,
 * and repairs a record found missing there with {@code floor = now + guard}, {@code now} being the older clock.
 * A holder that renewed between the clock write and the second read (its high-water is its later clock + ttl),
 * and whose record was then lost, is not covered by that floor.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RepairFloorFromAnEarlierClockTest {

    private static final Duration TTL = Duration.ofSeconds(5);
    private static final Duration SKEW = Duration.ofMillis(100);

    private final String base = "/review-repair-" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "rep";
    private final StallingZookeeperFactory stalls = new StallingZookeeperFactory();
    private final List<CuratorFramework> clients = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        stalls.release();
        CuratorFramework op = ReviewZookeeper.client(ReviewZookeeper.server().getConnectString());
        op.delete().deletingChildrenIfNeeded().forPath(base);
        op.close();
        clients.forEach(CuratorFramework::close);
    }

    private ZookeeperSequenceManager manager(CuratorFramework c) {
        clients.add(c);
        return new ZookeeperSequenceManager(c, base, Duration.ofSeconds(30));
    }

    private LeaseRequest request() {
        return new LeaseRequest(ns, 16, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(), SKEW, "h", 1,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 4, 12).pinned());
    }

    @Test
    void aRecordLostBetweenTheClockWriteAndTheSecondReadIsRepairedBelowItsHolder() throws Exception {
        String cs = ReviewZookeeper.server().getConnectString();
        ZookeeperSequenceManager filler = manager(ReviewZookeeper.client(cs));
        ZookeeperSequenceManager a = manager(ReviewZookeeper.client(cs));
        CuratorFramework operator = ReviewZookeeper.client(cs);
        clients.add(operator);
        for (int i = 0; i < 8; i++) {
            filler.borrow(request());
        }
        WorkerLease leaseA = a.borrow(request());
        assertThat(leaseA.workerId()).isEqualTo(8);
        for (int i = 9; i < 16; i++) {
            filler.borrow(request());
        }

        // C is a new process: its first round reads slots 0-7 with the clock, and 8-15 in a second round trip;
        // its thread is held up just before that second read goes out
        ZookeeperSequenceManager c = manager(stalls.client(cs, 20_000));
        String slot8 = c.slotPath(ns, 8);
        stalls.arm(ops -> ops.stream().allMatch(o -> o.getType() == OpCode.getData)
                && ops.get(0).getPath().equals(slot8));
        CompletableFuture<WorkerLease> borrowOfC = CompletableFuture.supplyAsync(() -> c.borrow(request()));
        assertThat(stalls.awaitTrapped(20)).isTrue();

        Thread.sleep(1_500);
        leaseA = a.renew(leaseA, System.currentTimeMillis() + TTL.toMillis()); // A's heartbeat: hw = clock + ttl
        operator.delete().forPath(slot8);                                       // then its record is lost
        stalls.release();
        WorkerLease leaseC = borrowOfC.get(30, TimeUnit.SECONDS);
        System.out.printf("A holds slot 8 up to %d; C got slot %d with floor %d (%d ms below A's high-water)%n",
                leaseA.highWaterMillis(), leaseC.workerId(), leaseC.floorMillis(),
                leaseA.highWaterMillis() - leaseC.floorMillis());
        assertThat(leaseC.workerId()).isEqualTo(8);
        assertThat(leaseC.floorMillis()).as("C's floor on slot 8 vs A's stored high-water")
                .isGreaterThanOrEqualTo(leaseA.highWaterMillis());
    }
}
