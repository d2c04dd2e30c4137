package io.github.idworker.lease.zookeeper;

import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A borrow whose claim committed but whose answer a lost connection kept from it starts another round with the same
 * request (its owner token) in the same session. That round is run here directly: the claim is made once, then the
 * same request borrows again through the same manager, which is what the retry does. It must get back the slot its
 * claim took, with that claim's floor and high-water: not {@link WorkerIdTakenException} naming itself (a preferred
 * worker id with {@code when-taken=fail} would not start), nor a second slot (the first one would be held, never
 * renewed, until its lease ran out).
 */
class ZookeeperOwnClaimRetryTest {

    private final String base = "/idworker-own-claim-" + UUID.randomUUID().toString().substring(0, 8);
    private final CuratorFramework client = client();
    private final ZookeeperSequenceManager manager = new ZookeeperSequenceManager(client, base, Duration.ofSeconds(10));

    private static CuratorFramework client() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(EmbeddedZookeeper.connectString(), 15_000, 5_000,
                new RetryNTimes(3, 100));
        c.start();
        try {
            assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return c;
    }

    @AfterEach
    void deleteBasePath() throws Exception {
        try {
            client.delete().deletingChildrenIfNeeded().forPath(base);
        } finally {
            client.close();
        }
    }

    private static LeaseRequest request(String namespace) {
        SnowflakeLayout layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 3, 12);
        return new LeaseRequest(namespace, layout.workerCapacity(), UUID.randomUUID().toString(),
                Duration.ofSeconds(10), System.currentTimeMillis(), Duration.ofMillis(100), "test-host", 1,
                layout.pinned());
    }

    @Test
    void theRetryOfAPreferredClaimThatCommittedGetsItsOwnSlotBack() {
        String ns = "own-" + UUID.randomUUID().toString().substring(0, 8);
        manager.giveBack(manager.borrow(request(ns)), System.currentTimeMillis()); // slot 0 used; 5 is above the count
        for (int preferred : new int[] {5, 0}) {
            LeaseRequest request = request(ns).withPreferredSlot(preferred);
            WorkerLease claimed = manager.borrow(request);

            WorkerLease retried = manager.borrow(request);

            assertThat(retried.workerId()).isEqualTo(preferred);
            assertThat(retried.owner()).isEqualTo(request.owner());
            assertThat(retried.floorMillis()).isEqualTo(claimed.floorMillis());
            assertThat(retried.highWaterMillis()).isEqualTo(claimed.highWaterMillis());
            assertThat(retried.generation()).isEqualTo(claimed.generation());
            // the lease is usable: a renewal checks owner, session and record
            assertThat(manager.renew(retried, retried.highWaterMillis()).highWaterMillis())
                    .isEqualTo(retried.highWaterMillis());
        }
    }

    @Test
    void theRetryOfAnyIdClaimThatCommittedTakesNoSecondSlot() throws Exception {
        String ns = "own-" + UUID.randomUUID().toString().substring(0, 8);
        LeaseRequest request = request(ns);
        WorkerLease claimed = manager.borrow(request);

        WorkerLease retried = manager.borrow(request);

        assertThat(retried.workerId()).isEqualTo(claimed.workerId());
        assertThat(retried.floorMillis()).isEqualTo(claimed.floorMillis());
        assertThat(retried.highWaterMillis()).isEqualTo(claimed.highWaterMillis());
        assertThat(client.getChildren().forPath(base + "/namespaces/" + ns + "/live")).hasSize(1);
    }

    /**
     * Only this session's claim is taken up: a slot held by another session's live znode stays that session's, even
     * under the same owner token, as any held slot would.
     */
    @Test
    void aHeldSlotOfAnotherSessionIsStillTakenWhateverItsOwnerToken() {
        String ns = "own-" + UUID.randomUUID().toString().substring(0, 8);
        LeaseRequest request = request(ns).withPreferredSlot(2);
        manager.borrow(request);
        try (CuratorFramework other = client()) {
            ZookeeperSequenceManager elsewhere = new ZookeeperSequenceManager(other, base, Duration.ofSeconds(10));
            assertThatThrownBy(() -> elsewhere.borrow(request))
                    .isInstanceOfSatisfying(WorkerIdTakenException.class, e -> assertThat(e.getWorkerId()).isEqualTo(2));
        }
    }
}
