package io.github.idworker.test.lease;

import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.LayoutMismatchException;
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
import io.github.idworker.test.IssuingThreads;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.RunningClock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The contract every {@link ISequenceManager} keeps, run against a real store. A centre's test extends this
 * class and returns its store from {@link #createStore()}; nothing else is needed.
 *
 * <p>Each test uses fresh random namespaces and deletes them afterwards. Lease expiry is driven through the
 * store hook {@link SequenceManagerStore#expireLease}, worker time through a {@link ManualClock}.
 *
 * <p>Time model: a worker's clock never runs more than max-skew ahead of the centre's: a centre refuses such a
 * worker (DESIGN rule 13), and the kit proves it does. Kit workers start at the centre's clock
 * ({@link SequenceManagerStore#centreNowMillis()}) in a namespace made to look long in use
 * ({@link SequenceManagerStore#createAgedNamespace}), so they need not wait for a new namespace's first floor
 * ({@code ttl + max-skew}); a test that moves a worker's clock forward past that lets the centre's clock catch up
 * ({@link #awaitCentreAt}) before the worker talks to the centre again. Worker tests use a short ttl
 * ({@link #WORKER_TTL}) so those waits stay short.
 */
public abstract class AbstractSequenceManagerContractTest extends AbstractClockBoundContractTest {

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
            slots.add(m.borrow(request(ns, 1024, centreNow())).workerId());
        }
        assertThat(slots).hasSize(1024);
        assertThatThrownBy(() -> store.newManager().borrow(request(ns, 1024, centreNow())))
                .isInstanceOf(WorkerIdExhaustedException.class)
                .hasMessageContaining(ns)
                .hasMessageContaining("1024")
                .satisfies(e -> assertThat(((WorkerIdExhaustedException) e).getCapacity()).isEqualTo(1024));
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
        long highWaterOfA = a.currentLease().highWaterMillis();
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
        String ns = agedNamespace(2);
        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 2, clock, BackwardsPolicy.FAIL);
        assertThat(a.currentLease().workerId()).isZero();
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

        assertThatThrownBy(() -> store.newManager().renew(a.currentLease(), clock.millis() + WORKER_TTL.toMillis()))
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
        WorkerLease second = store.newManager().borrow(request(ns, 1, centreNow()));
        m.giveBack(first, first.floorMillis());
        assertThat(store.storedOwner(ns, 0)).isEqualTo(second.owner());
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(second.highWaterMillis());
    }

    @Test
    void workerThatReachesItsHighWaterWithoutRenewalFencesItself() {
        String ns = agedNamespace(1);
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

        awaitCentreAt(clock.millis());
        a.renew();
        long afterRenewal = a.nextId();
        assertThat(afterRenewal).isGreaterThan(lastBeforeFence);
        assertThat(store.storedHighWater(ns, a.currentLease().workerId()))
                .isGreaterThanOrEqualTo(a.decode(afterRenewal).timestamp().toEpochMilli());
    }

    @Test
    void smallClockStepBackIsAbsorbedAndLargeOneMovesToAnotherSlot() {
        String ns = agedNamespace(3);
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

        // a large step, yet less than the aged namespace's margin: the slots' floors are still behind the clock
        clock.advance(-(SequenceManagerStore.AGED_MARGIN.toMillis() / 2));
        for (int i = 0; i < 3_000; i++) {
            assertThat(ids.add(a.nextId())).isTrue();
        }
        assertThat(a.leaseSwitchCount()).isEqualTo(1);
        assertThat(a.currentLease().workerId()).isNotEqualTo(firstSlot);
        // the keeper returns the old slot after the callers may go on
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(store.storedOwner(ns, firstSlot)).isNull());
    }

    @Test
    void largeClockStepBackFailsWhenSwitchingIsOff() {
        String ns = agedNamespace(3);
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

    // ---- switches under load (rule 12) -------------------------------------------------------------------------

    /**
     * Sixteen threads issue while the clock steps back 50 ms after every 100 ms, each step moving the worker to
     * another slot. A caller that read the fence before a switch and the state after it must never publish an
     * identifier with the old worker id: no identifier may repeat. Keeps the first eight of every millisecond and
     * worker id, where such a stale identifier (sequence 0) lands.
     */
    @Test
    @Tag("exclusive")
    void clockStepSwitchesUnderSixteenIssuingThreadsNeverRepeatAnId() throws Exception {
        String ns = agedNamespace(3);
        // real time from the centre's clock, so renewals and borrows are believed (DESIGN rule 13); a 50 ms step back
        // lasts 40 ms beyond the tolerated 10 ms for the worker to act on it, and a step forward after the switch
        // brings the clock back to the centre's. The heartbeat renews, so a slow round never reaches the high-water.
        RunningClock clock = new RunningClock(store.centreNowMillis(), 1);
        AbstractIdWorker w = start(store.newManager(), options(ns, layout(3), clock)
                .backwardsPolicy(BackwardsPolicy.SWITCH_WORKER).fenceWait(Duration.ofSeconds(5))
                .renewAutomatically(true).heartbeatInterval(Duration.ofMillis(300)).build());
        long sequenceMask = w.layout().maxSequence();
        int wantedSwitches = 160;
        // 160 switches take about 20 s alone on the machine; on a machine busy with other builds the keeper thread
        // sometimes runs only after the clock has caught up with a step, so fewer steps switch (143 in 100 s seen
        // on PostgreSQL). The run stops at the deadline and needs at least minSwitches to count as a run.
        int minSwitches = 60;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        IssuingThreads issuers = new IssuingThreads(w, 16, id -> (id & sequenceMask) < 8);
        try {
            while (w.leaseSwitchCount() < wantedSwitches && System.nanoTime() < deadline) {
                Thread.sleep(50);
                long before = w.leaseSwitchCount();
                WorkerLease left = w.currentLease();
                clock.step(-50);
                long stepDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (w.leaseSwitchCount() == before && System.nanoTime() < stepDeadline) {
                    LockSupport.parkNanos(200_000);
                }
                // A step only switches when the keeper acts on it within ~20 ms, before the clock has caught up;
                // after a switch the keeper is busy returning the worker id it left (a ZooKeeper server in this
                // JVM needs 50-170 ms for it beside 16 issuing threads on two cores). Step again once it is done.
                long returnDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (w.leaseSwitchCount() != before && left != null
                        && left.owner().equals(store.storedOwner(ns, left.workerId()))
                        && System.nanoTime() < returnDeadline) {
                    LockSupport.parkNanos(1_000_000);
                }
                clock.step(50);
            }
        } finally {
            issuers.close();
        }
        long[] ids = issuers.keptIds();
        List<Long> repeats = IssuingThreads.repeated(ids);
        System.out.printf("KIT-RESULT %s clock-step switches=%d issued=%d kept=%d repeated=%d%n",
                getClass().getSimpleName(), w.leaseSwitchCount(), issuers.issued(), ids.length, repeats.size());
        assertThat(issuers.unexpected()).isEmpty();
        assertThat(w.leaseSwitchCount()).isGreaterThanOrEqualTo(minSwitches);
        assertThat(repeats).as("identifiers issued twice, e.g. %s",
                repeats.stream().limit(3).map(w::decode).toList()).isEmpty();
    }

    /**
     * Sixteen threads issue while, forty times, the worker's lease expires, another manager takes its slot and
     * the worker's renewal finds it lost and moves on. No identifier repeats, and none of the worker's
     * identifiers on a taken slot lies in the range {@code (floor, high-water]} the taker may issue in.
     */
    @Test
    @Tag("exclusive")
    void lostLeaseSwitchesUnderSixteenIssuingThreadsStayOutOfTheTakersRange() throws Exception {
        String ns = agedNamespace(4);
        RunningClock clock = new RunningClock(store.centreNowMillis(), 1);
        // a short ttl, so a slot the worker lost soon becomes cheap to borrow again
        Duration ttl = WORKER_TTL;
        AbstractIdWorker w = start(store.newManager(), options(ns, layout(4), clock)
                .leaseTtl(ttl).fenceWait(Duration.ofSeconds(5)).build());
        ISequenceManager taker = store.newManager();
        List<WorkerLease> taken = new ArrayList<>();
        long sequenceMask = w.layout().maxSequence();
        IssuingThreads issuers = new IssuingThreads(w, 16, id -> (id & sequenceMask) < 16);
        try {
            for (int round = 0; round < 40; round++) {
                int slot = w.currentLease().workerId();
                store.expireLease(ns, slot);
                List<WorkerLease> others = new ArrayList<>();
                WorkerLease lease;
                // the slot's high-water lies ahead of the centre's clock, so the taker (its clock the centre's)
                // prefers other slots: take until it is ours. Its first high-water is the slot's + 1, so the slot is
                // soon cheap again; its lease lasts as long as the worker's, so it still holds the slot when the
                // worker borrows again, however slow the centre.
                while ((lease = taker.borrow(new LeaseRequest(ns, 16, UUID.randomUUID().toString(),
                        ttl, centreNow(), SKEW, "taker", 7,
                        layout(4).pinned()))).workerId() != slot) {
                    others.add(lease);
                }
                for (WorkerLease other : others) {
                    taker.giveBack(other, other.floorMillis());
                }
                long switches = w.leaseSwitchCount();
                w.renew();
                assertThat(w.leaseSwitchCount()).isEqualTo(switches + 1);
                assertThat(w.currentLease().workerId()).isNotEqualTo(slot);
                // the taker returns the slot as if it had issued up to its high-water: that range is its own
                taker.giveBack(lease, lease.highWaterMillis());
                taken.add(lease);
                Thread.sleep(20);
            }
        } finally {
            issuers.close();
        }
        long[] ids = issuers.keptIds();
        List<Long> repeats = IssuingThreads.repeated(ids);
        long inTakersRange = 0;
        for (long id : ids) {
            DecodedId d = w.decode(id);
            long ts = d.timestamp().toEpochMilli();
            for (WorkerLease t : taken) {
                if (t.workerId() == d.workerId() && ts > t.floorMillis() && ts <= t.highWaterMillis()) {
                    inTakersRange++;
                }
            }
        }
        System.out.printf("KIT-RESULT %s lost-lease switches=%d issued=%d repeated=%d inTakersRange=%d%n",
                getClass().getSimpleName(), w.leaseSwitchCount(), ids.length, repeats.size(), inTakersRange);
        assertThat(issuers.unexpected()).isEmpty();
        assertThat(ids.length).isGreaterThan(1000);
        assertThat(repeats).isEmpty();
        assertThat(inTakersRange).isZero();
    }

    // ---- pinned layout (rule 8) --------------------------------------------------------------------------------

    @Test
    void theLayoutIsPinnedWithTheNamespace() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        long now = centreNow();
        WorkerLease first = m.borrow(request(ns, 4, now));
        String pinned = layout(2).pinned();
        for (SnowflakeLayout changed : List.of(
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH.plus(Duration.ofDays(1)), 41, 2, 12),
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 13),
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 40, 2, 12))) {
            LeaseRequest other = new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL, now, SKEW, "test-host",
                    42, changed.pinned());
            assertThatThrownBy(() -> store.newManager().borrow(other))
                    .isInstanceOf(LayoutMismatchException.class)
                    .hasMessageContaining(ns)
                    .hasMessageContaining(pinned)
                    .hasMessageContaining(changed.pinned())
                    .hasMessageContaining("idworker.snowflake.epoch");
        }
        // nothing was claimed by the refused borrows: the next one takes the next slot
        assertThat(store.storedOwner(ns, 1)).isNull();
        WorkerLease second = m.borrow(request(ns, 4, now));
        assertThat(second.workerId()).isNotEqualTo(first.workerId());
        assertThat(store.storedOwner(ns, first.workerId())).isEqualTo(first.owner());
    }

    @Test
    void aWorkerWithAnotherEpochRefusesToStart() {
        String ns = agedNamespace(2);
        worker(store.newManager(), ns, 2, workerClock(), BackwardsPolicy.FAIL);
        SnowflakeLayout moved = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH.plus(Duration.ofDays(1)), 41, 2, 12);
        assertThatThrownBy(() -> start(store.newManager(), options(ns, moved, workerClock()).build()))
                .isInstanceOf(LayoutMismatchException.class)
                .hasMessageContaining(moved.pinned());
    }

    // ---- partial loss (rule 9) ---------------------------------------------------------------------------------

    /**
     * After a clean hand-over, only the slot's record is lost. The successor, whose clock is 150 ms behind the
     * previous holder's last identifier (inside max-skew), must not start from an old floor: its floor is at least
     * the centre's clock + ttl + max-skew, so none of its identifiers repeats one of the previous holder's.
     */
    @Test
    void aLostSlotRecordIsTreatedAsLostData() {
        String ns = newNamespace();
        Duration ttl = Duration.ofSeconds(1);
        Duration skew = Duration.ofMillis(200);
        AbstractIdWorker a = start(store.newManager(), options(ns, layout(0), centreClock())
                .leaseTtl(ttl).maxSkew(skew).lossGuard(ttl.plus(skew)).build());
        Set<Long> idsOfA = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            idsOfA.add(a.nextId());
        }
        long lastOfA = a.decode(a.nextId()).timestamp().toEpochMilli();
        a.close();
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(lastOfA);

        store.deleteSlotRecord(ns, 0);
        long lossSeen = centreNow();
        MillisClock behind = () -> centreNow() - 150;
        AbstractIdWorker b = start(store.newManager(), options(ns, layout(0), behind)
                .leaseTtl(ttl).maxSkew(skew).lossGuard(ttl.plus(skew)).build());
        assertThat(b.currentLease().workerId()).isZero();
        assertThat(b.currentLease().floorMillis())
                .isGreaterThanOrEqualTo(lastOfA)
                .isGreaterThanOrEqualTo(lossSeen + ttl.toMillis() + skew.toMillis() - CENTRE_CLOCK_TOLERANCE_MS);
        long[] idsOfB = b.nextIds(20_000);
        long repeated = Arrays.stream(idsOfB).filter(idsOfA::contains).count();
        assertThat(repeated).as("identifiers of the previous holder issued again").isZero();
    }

    /** The record of a slot that is still held is lost: the next borrower's floor is above the holder's range. */
    @Test
    void aLostRecordOfAHeldSlotKeepsTheHolderFenced() {
        lossWhileASlotIsHeldStartsTheNextBorrowAboveTheHolder(ns -> store.deleteSlotRecord(ns, 0));
    }

    /**
     * The whole namespace is lost (every record of it deleted: a wiped table, an evicted hash, a deleted tree)
     * while a worker holds a slot and issues up to its high-water. The centre cannot tell this from a namespace
     * it never saw, so even a first borrow's floor must lie above anything a holder of a lost generation may have
     * stored: at least the centre's clock + ttl + max-skew when it found the namespace missing.
     */
    @Test
    void aNamespaceLostWhileASlotIsHeldStartsItsNextBorrowAboveTheHolder() {
        lossWhileASlotIsHeldStartsTheNextBorrowAboveTheHolder(store::deleteNamespace);
    }

    /**
     * A worker holds the only slot of a new namespace and renewed it; then {@code loss} deletes records of the
     * namespace. The next borrower, its clock 150 ms behind (inside max-skew), gets the slot with a floor above
     * the holder's high-water and above the centre's clock + ttl + max-skew, and the holder's renewal fails.
     */
    private void lossWhileASlotIsHeldStartsTheNextBorrowAboveTheHolder(Consumer<String> loss) {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        Duration ttl = Duration.ofSeconds(1);
        Duration skew = Duration.ofMillis(200);
        LeaseRequest first = new LeaseRequest(ns, 1, UUID.randomUUID().toString(), ttl, centreNow(),
                skew, "test-host", 42, layout(0).pinned());
        WorkerLease held = m.borrow(first);
        // a new namespace may start with a floor ahead of the clock; renew from there, as a worker would
        held = m.renew(held, Math.max(held.highWaterMillis(), centreNow() + ttl.toMillis()));
        afterThisMillisecond();

        loss.accept(ns);
        long lossSeen = centreNow();
        LeaseRequest next = new LeaseRequest(ns, 1, UUID.randomUUID().toString(), ttl,
                centreNow() - 150, skew, "test-host", 43, layout(0).pinned());
        WorkerLease successor = store.newManager().borrow(next);
        assertThat(successor.workerId()).isZero();
        assertThat(successor.floorMillis()).as("the successor's floor, against the holder's high-water")
                .isGreaterThanOrEqualTo(held.highWaterMillis())
                .isGreaterThanOrEqualTo(lossSeen + ttl.toMillis() + skew.toMillis() - CENTRE_CLOCK_TOLERANCE_MS);
        WorkerLease stale = held;
        assertThatThrownBy(() -> m.renew(stale, centreNow() + ttl.toMillis()))
                .isInstanceOf(LeaseLostException.class);
    }

    // ---- a hung centre (rule 10) -------------------------------------------------------------------------------

    /**
     * A renewal hangs on a stalled centre. Callers must not wait for it: after a large clock step the caller
     * gets {@link LeaseLostException} within fence-wait + 1 s, past the high-water the same, and close() returns
     * within its bound.
     */
    @Test
    @Tag("exclusive")
    void aHungCentreCallFencesCallersWithinFenceWaitAndCloseReturns() throws Exception {
        String ns = agedNamespace(3);
        ManualClock clock = workerClock();
        Duration fenceWait = Duration.ofMillis(500);
        long bound = fenceWait.toMillis() + 1_000;
        AbstractIdWorker a = start(store.newManager(), options(ns, layout(3), clock)
                .backwardsPolicy(BackwardsPolicy.SWITCH_WORKER).fenceWait(fenceWait).build());
        long before = a.nextId();
        int slot = a.currentLease().workerId();
        long highWater = a.currentLease().highWaterMillis();
        ExecutorService callers = Executors.newCachedThreadPool();
        try (AutoCloseable stall = store.stall(ns, slot)) {
            Future<?> renewal = callers.submit(() -> {
                try {
                    a.renew();
                } catch (RuntimeException expected) {
                    // the stalled centre times out, or the worker closes first
                }
            });
            Thread.sleep(200);
            assertThat(renewal.isDone()).as("the renewal hangs on the stalled centre").isFalse();

            clock.advance(-5_000);
            assertThat(timed(callers, a::nextId, bound)).isInstanceOf(LeaseLostException.class);
            clock.set(highWater + 1);
            assertThat(timed(callers, a::nextId, bound)).isInstanceOf(LeaseLostException.class);

            long closeStarted = System.nanoTime();
            callers.submit(a::close).get(bound, TimeUnit.MILLISECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStarted)).isLessThanOrEqualTo(bound);
            assertThatThrownBy(a::nextId).isInstanceOf(IllegalStateException.class);
        } finally {
            callers.shutdownNow();
        }
        assertThat(before).isPositive();
    }

    /** Runs {@code call} on another thread and returns what it threw, failing when it took longer than {@code boundMillis}. */
    private static Throwable timed(ExecutorService on, Runnable call, long boundMillis) throws Exception {
        long started = System.nanoTime();
        Future<Throwable> outcome = on.submit(() -> {
            try {
                call.run();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Throwable thrown;
        try {
            thrown = outcome.get(boundMillis + 2_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the call was still blocked after " + (boundMillis + 2_000) + " ms");
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThanOrEqualTo(boundMillis);
        return thrown;
    }
}