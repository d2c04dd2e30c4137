package io.github.idworker.test;

import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
 * The contract every {@link ISequenceManager} keeps, run against a real store. A centre's test extends this
 * class and returns its store from {@link #createStore()}; nothing else is needed.
 *
 * <p>Each test uses fresh random namespaces and deletes them afterwards. Lease expiry is driven through the
 * store hook {@link SequenceManagerStore#expireLease}, worker time through a {@link ManualClock}: no test
 * sleeps to let time pass, except the one that proves the centre's own clock expires leases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class AbstractSequenceManagerContractTest {

    protected static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);

    private final List<String> namespaces = new ArrayList<>();
    private final List<AbstractIdWorker> workers = new ArrayList<>();
    protected SequenceManagerStore store;

    /** The centre under test; called once per test. */
    protected abstract SequenceManagerStore createStore() throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void cleanUp() throws Exception {
        workers.forEach(AbstractIdWorker::close);
        for (String ns : namespaces) {
            store.deleteNamespace(ns);
        }
        store.close();
    }

    /** A fresh namespace, deleted after the test. */
    protected String newNamespace() {
        String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
        namespaces.add(ns);
        return ns;
    }

    /**
     * A worker clock a few minutes ahead of the centre. A centre may treat its records as written up to
     * {@code now + ttl + skew} after it lost them (the Redis centre does for a new namespace); starting ahead
     * keeps those waits out of tests about other rules. The wait itself is tested with a clock behind.
     */
    protected ManualClock workerClock() {
        return new ManualClock(System.currentTimeMillis() + TTL.toMillis() + SKEW.toMillis() + 120_000);
    }

    protected LeaseRequest request(String ns, int slotCount, long workerNow) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, workerNow, SKEW, "test-host", 42);
    }

    /** A worker over {@code manager} that renews only when the test says so. */
    protected AbstractIdWorker worker(ISequenceManager manager, String ns, int workerBits, MillisClock clock,
                                      BackwardsPolicy policy) {
        WorkerOptions options = WorkerOptions.builder()
                .namespace(ns)
                .layout(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, workerBits, 12))
                .leaseTtl(TTL)
                .maxSkew(SKEW)
                .maxBackward(Duration.ofMillis(10))
                .backwardsPolicy(policy)
                .fenceWait(Duration.ofMillis(200))
                .clock(clock)
                .renewAutomatically(false)
                .shutdownHook(false)
                .build();
        AbstractIdWorker w = new AbstractIdWorker(manager, options) {
        };
        workers.add(w);
        return w.start();
    }

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
                    return m.borrow(request(ns, 1024, System.currentTimeMillis()));
                }));
            }
            go.countDown();
            Set<Integer> slots = new HashSet<>();
            for (Future<WorkerLease> f : leases) {
                WorkerLease lease = f.get(60, TimeUnit.SECONDS);
                slots.add(lease.workerId());
                assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
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
        for (int i = 0; i < 1024; i++) {
            slots.add(m.borrow(request(ns, 1024, System.currentTimeMillis())).workerId());
        }
        assertThat(slots).hasSize(1024);
        assertThatThrownBy(() -> store.newManager().borrow(request(ns, 1024, System.currentTimeMillis())))
                .isInstanceOf(WorkerIdExhaustedException.class)
                .hasMessageContaining(ns)
                .hasMessageContaining("1024")
                .satisfies(e -> assertThat(((WorkerIdExhaustedException) e).getCapacity()).isEqualTo(1024));
    }

    @Test
    void borrowStoresTheFirstHighWaterAndReportsTheFloor() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        long now = System.currentTimeMillis();
        WorkerLease lease = m.borrow(request(ns, 4, now));
        assertThat(lease.highWaterMillis()).isGreaterThanOrEqualTo(now + TTL.toMillis());
        assertThat(lease.floorMillis()).isLessThan(lease.highWaterMillis());
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
    }

    @Test
    void expiredLeaseIsReclaimedAndTheSuccessorIssuesOnlyAboveTheStoredHighWater() {
        String ns = newNamespace();
        ManualClock clockA = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 0, clockA, BackwardsPolicy.FAIL);
        List<Long> idsOfA = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            idsOfA.add(a.nextId());
        }
        clockA.advance(TTL.toMillis() / 2);
        idsOfA.add(a.nextId());
        long highWaterOfA = a.currentLease().highWaterMillis();
        assertThatThrownBy(() -> store.newManager().borrow(request(ns, 1, clockA.millis())))
                .isInstanceOf(WorkerIdExhaustedException.class);

        store.expireLease(ns, 0);
        // the successor's clock is behind the old holder's high-water: it must wait for it, not reuse it
        ManualClock clockB = new ManualClock(highWaterOfA - 5);
        Thread mover = new Thread(() -> {
            sleepQuietly(100);
            clockB.set(highWaterOfA + 3);
        });
        mover.start();
        AbstractIdWorker b = worker(store.newManager(), ns, 0, clockB, BackwardsPolicy.FAIL);
        assertThat(b.currentLease().workerId()).isZero();
        assertThat(b.currentLease().floorMillis()).isEqualTo(highWaterOfA);
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
        String ns = newNamespace();
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 2, clock, BackwardsPolicy.FAIL);
        assertThat(a.currentLease().workerId()).isZero();
        long before = a.nextId();

        store.expireLease(ns, 0);
        ISequenceManager other = store.newManager();
        WorkerLease taken = other.borrow(request(ns, 1, clock.millis()));
        assertThat(taken.workerId()).isZero();

        assertThatThrownBy(() -> store.newManager().renew(a.currentLease(), clock.millis() + TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class);
        a.renew();
        assertThat(a.leaseSwitchCount()).isEqualTo(1);
        assertThat(a.currentLease().workerId()).isNotZero();
        assertThat(store.storedOwner(ns, 0)).isEqualTo(taken.owner());
        long after = a.nextId();
        assertThat(after).isGreaterThan(before);
        assertThat(a.decode(after).workerId()).isEqualTo(a.currentLease().workerId());
    }

    @Test
    void renewIsOwnerCheckedAndNeverLowersTheHighWater() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease lease = m.borrow(request(ns, 4, System.currentTimeMillis()));
        WorkerLease forged = new WorkerLease(ns, lease.workerId(), "someone-else", lease.floorMillis(),
                lease.highWaterMillis(), lease.generation(), lease.ttl());
        assertThatThrownBy(() -> m.renew(forged, lease.highWaterMillis() + 10_000))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());

        WorkerLease renewed = m.renew(lease, lease.highWaterMillis() + 5_000);
        assertThat(renewed.highWaterMillis()).isEqualTo(lease.highWaterMillis() + 5_000);
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis() + 5_000);
        m.renew(renewed, lease.highWaterMillis());
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis() + 5_000);
    }

    @Test
    void returnFreesTheSlotAndStoresTheLastIssuedTimestamp() {
        String ns = newNamespace();
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 2, clock, BackwardsPolicy.FAIL);
        int slot = a.currentLease().workerId();
        long last = 0;
        for (int i = 0; i < 100; i++) {
            last = a.nextId();
        }
        long lastTimestamp = a.decode(last).timestamp().toEpochMilli();
        a.close();
        assertThatThrownBy(a::nextId).isInstanceOf(IllegalStateException.class);
        assertThat(store.storedOwner(ns, slot)).isNull();
        assertThat(store.storedHighWater(ns, slot)).isEqualTo(lastTimestamp);

        WorkerLease next = store.newManager().borrow(request(ns, 4, clock.millis() + 1));
        assertThat(next.workerId()).isEqualTo(slot);
        assertThat(next.floorMillis()).isEqualTo(lastTimestamp);
    }

    @Test
    void returnOfALostLeaseChangesNothing() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease first = m.borrow(request(ns, 1, System.currentTimeMillis()));
        store.expireLease(ns, 0);
        WorkerLease second = store.newManager().borrow(request(ns, 1, System.currentTimeMillis()));
        m.giveBack(first, first.floorMillis());
        assertThat(store.storedOwner(ns, 0)).isEqualTo(second.owner());
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(second.highWaterMillis());
    }

    @Test
    void workerThatReachesItsHighWaterWithoutRenewalFencesItself() {
        String ns = newNamespace();
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 1, clock, BackwardsPolicy.FAIL);
        long highWater = a.currentLease().highWaterMillis();
        clock.set(highWater);
        long lastBeforeFence = a.nextId();
        assertThat(a.decode(lastBeforeFence).timestamp().toEpochMilli()).isEqualTo(highWater);
        clock.set(highWater + 1);
        assertThatThrownBy(a::nextId)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(ns)
                .hasMessageContaining("high-water");
        assertThatThrownBy(() -> a.nextIds(10)).isInstanceOf(LeaseLostException.class);
        assertThat(a.fenceTripCount()).isGreaterThanOrEqualTo(2);

        a.renew();
        long afterRenewal = a.nextId();
        assertThat(afterRenewal).isGreaterThan(lastBeforeFence);
        assertThat(store.storedHighWater(ns, a.currentLease().workerId()))
                .isGreaterThanOrEqualTo(a.decode(afterRenewal).timestamp().toEpochMilli());
    }

    @Test
    void smallClockStepBackIsAbsorbedAndLargeOneMovesToAnotherSlot() {
        String ns = newNamespace();
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 3, clock, BackwardsPolicy.SWITCH_WORKER);
        Set<Long> ids = new HashSet<>();
        long prev = a.nextId();
        ids.add(prev);
        clock.advance(-5);
        // within the tolerated step the worker continues the last millisecond's sequence (4096 ids)
        for (int i = 0; i < 3_000; i++) {
            long id = a.nextId();
            assertThat(id).isGreaterThan(prev);
            prev = id;
            ids.add(id);
        }
        clock.advance(10);
        for (int i = 0; i < 3_000; i++) {
            long id = a.nextId();
            assertThat(id).isGreaterThan(prev);
            prev = id;
            ids.add(id);
        }
        assertThat(a.leaseSwitchCount()).isZero();
        int firstSlot = a.currentLease().workerId();

        clock.advance(-5_000);
        for (int i = 0; i < 3_000; i++) {
            assertThat(ids.add(a.nextId())).isTrue();
        }
        assertThat(a.leaseSwitchCount()).isEqualTo(1);
        assertThat(a.currentLease().workerId()).isNotEqualTo(firstSlot);
        assertThat(store.storedOwner(ns, firstSlot)).isNull();
    }

    @Test
    void largeClockStepBackFailsWhenSwitchingIsOff() {
        String ns = newNamespace();
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 3, clock, BackwardsPolicy.FAIL);
        long before = a.nextId();
        clock.advance(-2_000);
        assertThatThrownBy(a::nextId)
                .isInstanceOf(ClockMovedBackwardsException.class)
                .hasMessageContaining("2000 ms");
        clock.advance(2_001);
        assertThat(a.nextId()).isGreaterThan(before);
        assertThat(a.leaseSwitchCount()).isZero();
    }

    @Test
    void theCentresOwnClockExpiresLeases() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        LeaseRequest shortLease = new LeaseRequest(ns, 1, UUID.randomUUID().toString(), Duration.ofMillis(300),
                System.currentTimeMillis(), SKEW, "test-host", 42);
        WorkerLease first = m.borrow(shortLease);
        assertThatThrownBy(() -> m.borrow(request(ns, 1, System.currentTimeMillis())))
                .isInstanceOf(WorkerIdExhaustedException.class);
        WorkerLease[] second = new WorkerLease[1];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .ignoreException(WorkerIdExhaustedException.class).untilAsserted(() ->
                second[0] = store.newManager().borrow(request(ns, 1, System.currentTimeMillis())));
        assertThat(second[0].workerId()).isEqualTo(first.workerId());
        assertThat(second[0].floorMillis()).isGreaterThanOrEqualTo(first.highWaterMillis());
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
