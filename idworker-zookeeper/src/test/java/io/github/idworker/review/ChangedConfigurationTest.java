package io.github.idworker.review;

import io.github.idworker.LayoutMismatchException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A configuration changed between deployments on an existing namespace. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ChangedConfigurationTest {

    private final String base = "/review-cfg-" + UUID.randomUUID().toString().substring(0, 8);
    private final CuratorFramework client = ReviewZookeeper.client(ReviewZookeeper.server().getConnectString());
    private final ZookeeperSequenceManager m = new ZookeeperSequenceManager(client, base, Duration.ofSeconds(10));

    @AfterEach
    void close() throws Exception {
        client.delete().deletingChildrenIfNeeded().forPath(base);
        client.close();
    }

    private static LeaseRequest request(String ns, SnowflakeLayout layout, Duration ttl, Duration skew) {
        return new LeaseRequest(ns, layout.workerCapacity(), UUID.randomUUID().toString(), ttl,
                System.currentTimeMillis(), skew, "h", 1, layout.pinned());
    }

    @Test
    void workerBitsAndEpochArePinned() {
        SnowflakeLayout first = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12);
        m.borrow(request("pin", first, Duration.ofSeconds(5), Duration.ofMillis(100)));
        assertThatThrownBy(() -> m.borrow(request("pin", SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 3, 11),
                Duration.ofSeconds(5), Duration.ofMillis(100)))).isInstanceOf(LayoutMismatchException.class);
        assertThatThrownBy(() -> m.borrow(request("pin", SnowflakeLayout.of(Instant.parse("2024-01-01T00:00:00Z"),
                41, 2, 12), Duration.ofSeconds(5), Duration.ofMillis(100)))).isInstanceOf(LayoutMismatchException.class);
    }

    /**
     * The ttl is not pinned. A namespace tree lost while a holder with a long ttl still issues is recreated by a
     * borrower with a short ttl: the generation floor is the creation time + the NEW borrower's ttl + skew, below
     * the high-water the old holder stored and may issue up to.
     */
    @Test
    void aLostNamespaceRecreatedByAShorterTtlStartsBelowALongerTtlHolder() throws Exception {
        SnowflakeLayout layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 12);
        WorkerLease old = m.borrow(request("ttl", layout, Duration.ofSeconds(30), Duration.ofMillis(500)));
        client.delete().deletingChildrenIfNeeded().forPath(m.namespacePath("ttl"));
        WorkerLease next = m.borrow(request("ttl", layout, Duration.ofSeconds(2), Duration.ofMillis(500)));
        System.out.printf("old holder (ttl 30 s) may issue up to %d; after the namespace was lost a ttl-2s borrower got "
                + "slot %d with floor %d (%d ms below)%n", old.highWaterMillis(), next.workerId(), next.floorMillis(),
                old.highWaterMillis() - next.floorMillis());
        assertThat(next.floorMillis()).isGreaterThanOrEqualTo(old.highWaterMillis());
    }
}
