package io.github.idworker.test.lease;

import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.test.ManualClock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The contract kit's tests of a lease's life, run for every centre by {@link AbstractSequenceManagerContractTest}:
 * concurrent borrowers get distinct slots and no more than the capacity; a borrow stores its high-water; renewal
 * is owner-checked and never lowers the high-water; a returned slot keeps the last issued timestamp as its next
 * floor; and a lease that expired, by the test's hook or by the centre's own clock, goes to a successor that issues
 * only above the old holder's high-water.
 */
abstract class AbstractLeaseLifecycleContractTest extends AbstractClockBoundContractTest {

    @Test
    void concurrentBorrowersOverManyManagersGetDistinctSlots() throws Exception {
        String ns = newNamespace();
        int managers = 8;
        int borrowers = 64;
        List<ISequenceManager> pool = new ArrayList<>();
        for (int i = 0; i < managers; i++) {
            pool.add(store.newManager());
        }
        ExecutorService exec = Executors.newFixedThreadPool(borrowers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<WorkerLease>> leases = new ArrayList<>();
        try {
            for (int i = 0; i < borrowers; i++) {
                ISequenceManager m = pool.get(i % managers);
                leases.add(exec.submit(() -> {
                    go.await();
                    return m.borrow(request(ns, 1024, centreNow()));
                }));
            }
            go.countDown();
            Set<Integer> slots = new HashSet<>();
            for (Future<WorkerLease> f : leases) {
                WorkerLease lease = f.get(60, TimeUnit.SECONDS);
                slots.add(lease.workerId());
                assertThat(store.storedOwner(ns, lease.workerId()))
                        .as("owner stored for worker id %d of %s after %d of %d borrows returned",
                                lease.workerId(), ns, slots.size(), borrowers)
                        .isEqualTo(lease.owner());
                assertThat(lease.workerId()).isBetween(0, 1023);
            }
            assertThat(slots).hasSize(borrowers);
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void borrowBeyondCapacityFailsNamingNamespaceAndCapacity() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        Set<Integer> slots = new HashSet<>();
        // 256 slots (8 worker bits): every slot is found by the same search as in a 1 024-slot namespace, and a
        // borrow near the end scans all those before it. Ten-minute leases, so none expires before the last borrow
        // on a loaded machine (with the kit's 30 s ttl the first ones once did, and the last borrow found a slot).
        int capacity = 256;
        Duration longTtl = Duration.ofMinutes(10);
        for (int i = 0; i < capacity; i++) {
            slots.add(m.borrow(request(ns, capacity, centreNow(), longTtl)).workerId());
        }
        assertThat(slots).hasSize(capacity);
        assertThatThrownBy(() -> store.newManager().borrow(request(ns, capacity, centreNow(), longTtl)))
                .isInstanceOf(WorkerIdExhaustedException.class)
                .hasMessageContaining(ns)
                .hasMessageContaining("256")
                .satisfies(e -> assertThat(((WorkerIdExhaustedException) e).getCapacity()).isEqualTo(capacity));
    }

    @Test
    void borrowStoresTheFirstHighWaterAndReportsTheFloor() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        long now = centreNow();
        WorkerLease lease = m.borrow(request(ns, 4, now));
        assertThat(lease.highWaterMillis()).isGreaterThanOrEqualTo(now + TTL.toMillis());
        assertThat(lease.floorMillis()).isLessThan(lease.highWaterMillis());
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
    }

    @Test
    void expiredLeaseIsReclaimedAndTheSuccessorIssuesOnlyAboveTheStoredHighWater() {
        String ns = agedNamespace(0);
        ManualClock clockA = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 0, clockA, BackwardsPolicy.FAIL);
        List<Long> idsOfA = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            idsOfA.add(a.nextId());
        }
        clockA.advance(WORKER_TTL.toMillis() / 2);
        idsOfA.add(a.nextId());
        long highWaterOfA = leaseOf(a).highWaterMillis();
        assertThatThrownBy(() -> store.newManager().borrow(workerRequest(ns, 1, centreNow())))
                .isInstanceOf(WorkerIdExhaustedException.class);

        store.expireLease(ns, 0);
        // the successor's clock is behind the old holder's high-water: it must wait for it, not reuse it (and the
        // centre's clock must have come close enough to that high-water for the successor to be believed)
        awaitCentreAt(highWaterOfA);
        ManualClock clockB = new ManualClock(highWaterOfA - 5);
        Thread mover = new Thread(() -> {
            sleepQuietly(100);
            clockB.set(highWaterOfA + 3);
        });
        mover.start();
        AbstractIdWorker b = worker(store.newManager(), ns, 0, clockB, BackwardsPolicy.FAIL);
        assertThat(leaseOf(b).workerId()).isZero();
        assertThat(leaseOf(b).floorMillis()).isEqualTo(highWaterOfA);
        for (int i = 0; i < 1000; i++) {
            DecodedId d = b.decode(b.nextId());
            assertThat(d.timestamp().toEpochMilli()).isGreaterThan(highWaterOfA);
        }
        for (long id : idsOfA) {
            assertThat(a.decode(id).timestamp().toEpochMilli()).isLessThanOrEqualTo(highWaterOfA);
        }
    }

    @Test
    void renewalAfterTheSlotWasTakenFailsAndTheWorkerMovesToANewSlot() {
        String ns = agedNamespace(2);
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 2, clock, BackwardsPolicy.FAIL);
        assertThat(leaseOf(a).workerId()).isZero();
        long before = a.nextId();

        store.expireLease(ns, 0);
        ISequenceManager other = store.newManager();
        // slot 0's high-water lies ahead of the centre's clock, so a borrower prefers other slots: take until it is
        // slot 0, then hand the others back
        List<WorkerLease> others = new ArrayList<>();
        WorkerLease taken;
        while ((taken = other.borrow(workerRequest(ns, 4, centreNow()))).workerId() != 0) {
            others.add(taken);
        }
        for (WorkerLease o : others) {
            other.giveBack(o, o.floorMillis());
        }

        assertThatThrownBy(() -> store.newManager().renew(leaseOf(a), clock.millis() + WORKER_TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class);
        a.renew();
        assertThat(a.leaseSwitchCount()).isEqualTo(1);
        assertThat(leaseOf(a).workerId()).isNotZero();
        assertThat(store.storedOwner(ns, 0)).isEqualTo(taken.owner());
        long after = a.nextId();
        assertThat(after).isGreaterThan(before);
        assertThat(a.decode(after).workerId()).isEqualTo(leaseOf(a).workerId());
    }

    @Test
    void renewIsOwnerCheckedAndNeverLowersTheHighWater() {
        // a namespace in use, so the first high-water is the centre's clock + ttl and may be raised within the bound
        String ns = agedNamespace(2);
        ISequenceManager m = store.newManager();
        WorkerLease lease = m.borrow(workerRequest(ns, 4, centreNow()));
        WorkerLease forged = new WorkerLease(ns, lease.workerId(), "someone-else", lease.floorMillis(),
                lease.highWaterMillis(), lease.generation(), lease.ttl());
        assertThatThrownBy(() -> m.renew(forged, lease.highWaterMillis() + 10_000))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());

        // within the clock bound: a renewal may ask for at most the centre's clock + ttl + max-skew
        WorkerLease renewed = m.renew(lease, lease.highWaterMillis() + 200);
        assertThat(renewed.highWaterMillis()).isEqualTo(lease.highWaterMillis() + 200);
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis() + 200);
        m.renew(renewed, lease.highWaterMillis());
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis() + 200);
    }

    @Test
    void returnFreesTheSlotAndStoresTheLastIssuedTimestamp() {
        String ns = agedNamespace(2);
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 2, clock, BackwardsPolicy.FAIL);
        int slot = leaseOf(a).workerId();
        long last = 0;
        for (int i = 0; i < 100; i++) {
            last = a.nextId();
        }
        long lastTimestamp = a.decode(last).timestamp().toEpochMilli();
        a.close();
        assertThatThrownBy(a::nextId).isInstanceOf(IllegalStateException.class);
        assertThat(store.storedOwner(ns, slot)).isNull();
        assertThat(store.storedHighWater(ns, slot)).isEqualTo(lastTimestamp);

        WorkerLease next = store.newManager().borrow(workerRequest(ns, 4, clock.millis() + 1));
        assertThat(next.workerId()).isEqualTo(slot);
        assertThat(next.floorMillis()).isEqualTo(lastTimestamp);
    }

    @Test
    void returnOfALostLeaseChangesNothing() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease first = m.borrow(request(ns, 1, centreNow()));
        store.expireLease(ns, 0);
        // a centre whose replicas catch up asynchronously (a ZooKeeper ensemble: a new session may read from a
        // follower behind the inspector's write) may show the lease live for a moment (CI saw one such run)
        WorkerLease[] borrowed = new WorkerLease[1];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .ignoreException(WorkerIdExhaustedException.class).untilAsserted(() ->
                borrowed[0] = store.newManager().borrow(request(ns, 1, centreNow())));
        WorkerLease second = borrowed[0];
        m.giveBack(first, first.floorMillis());
        assertThat(store.storedOwner(ns, 0)).isEqualTo(second.owner());
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(second.highWaterMillis());
    }

    @Test
    void theCentresOwnClockExpiresLeases() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        // a second: long enough for the next borrow to find it live on a busy machine (the MyBatis centre reads the
        // database clock in a transaction of its own before it claims)
        LeaseRequest shortLease = new LeaseRequest(ns, 1, UUID.randomUUID().toString(), Duration.ofSeconds(1),
                centreNow(), SKEW, "test-host", 42, layout(0).pinned());
        WorkerLease first = m.borrow(shortLease);
        assertThatThrownBy(() -> m.borrow(request(ns, 1, centreNow())))
                .isInstanceOf(WorkerIdExhaustedException.class);
        WorkerLease[] second = new WorkerLease[1];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .ignoreException(WorkerIdExhaustedException.class).untilAsserted(() ->
                second[0] = store.newManager().borrow(request(ns, 1, centreNow())));
        assertThat(second[0].workerId()).isEqualTo(first.workerId());
        assertThat(second[0].floorMillis()).isGreaterThanOrEqualTo(first.highWaterMillis());
    }
}
