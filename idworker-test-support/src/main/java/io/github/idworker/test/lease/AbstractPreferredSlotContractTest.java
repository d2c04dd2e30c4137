package io.github.idworker.test.lease;

import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.WhenTaken;
import io.github.idworker.snowflake.WorkerIdPreference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lease rules for a worker id the operator chose ({@link LeaseRequest#withPreferredSlot},
 * {@code idworker.worker-id.*}): the preferred slot is claimed like any other, only while no live lease of another
 * owner holds it, with the same floor; a held one is refused, typed and with nothing claimed; of borrowers that
 * prefer one slot at once exactly one gets it; slots skipped below a preferred one stay fresh; and a worker fails
 * or falls back to any free slot as configured.
 *
 * <p>A centre written before {@link LeaseRequest#preferredSlot()} existed may opt out with
 * {@link #leasesPreferredSlots()}; its workers then cannot be given a preferred worker id (they refuse to start
 * with one, since the centre hands out another slot).
 */
abstract class AbstractPreferredSlotContractTest extends AbstractWorkerFenceContractTest {

    /**
     * The first line of each test here: a {@code @BeforeEach} would skip every test of a subclass's whole chain,
     * the rest of the lease kit included.
     */
    private void onlyForCentresWithPreferredSlots() {
        assumeTrue(leasesPreferredSlots(), "this centre does not lease preferred slots");
    }

    @Test
    void aPreferredFreeSlotIsTakenAndTheSlotsBelowItStayFresh() {
        onlyForCentresWithPreferredSlots();
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease preferred = m.borrow(request(ns, 4, centreNow()).withPreferredSlot(2));
        assertThat(preferred.workerId()).isEqualTo(2);
        assertThat(store.storedOwner(ns, 2)).isEqualTo(preferred.owner());
        assertThat(store.storedOwner(ns, 0)).isNull();
        assertThat(store.storedOwner(ns, 1)).isNull();
        // a loss would be judged later and floor later: the skipped slots must get the fresh floor, as slot 2 did
        afterThisMillisecond();
        Set<Integer> others = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            WorkerLease any = m.borrow(request(ns, 4, centreNow()));
            others.add(any.workerId());
            assertThat(any.floorMillis()).as("floor of skipped slot %d", any.workerId())
                    .isLessThanOrEqualTo(preferred.floorMillis());
        }
        assertThat(others).containsExactlyInAnyOrder(0, 1, 3);
        assertThatThrownBy(() -> m.borrow(request(ns, 4, centreNow())))
                .isInstanceOf(WorkerIdExhaustedException.class);
    }

    @Test
    void aPreferredSlotHeldByALiveLeaseIsRefusedWithNothingClaimed() {
        onlyForCentresWithPreferredSlots();
        String ns = newNamespace();
        WorkerLease held = store.newManager().borrow(request(ns, 4, centreNow()).withPreferredSlot(1));
        ISequenceManager other = store.newManager();
        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> other.borrow(request(ns, 4, centreNow()).withPreferredSlot(1)))
                    .isInstanceOfSatisfying(WorkerIdTakenException.class, e -> {
                        assertThat(e.getWorkerId()).isEqualTo(1);
                        assertThat(e.getNamespace()).isEqualTo(ns);
                    })
                    .hasMessageContaining("Worker id 1 of namespace '" + ns + "' is held by a live lease")
                    .hasMessageContaining("idworker.worker-id.when-taken");
        }
        assertThat(store.storedOwner(ns, 1)).isEqualTo(held.owner());
        for (int slot : new int[] {0, 2, 3}) {
            assertThat(store.storedOwner(ns, slot)).as("slot %d", slot).isNull();
        }
    }

    /** The fence holds for a preferred slot too: its successor's floor is the high-water its last holder stored. */
    @Test
    void aPreferredSlotIsReclaimedAboveItsStoredHighWaterOnceFreeOrExpired() {
        onlyForCentresWithPreferredSlots();
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease first = m.borrow(request(ns, 4, centreNow()).withPreferredSlot(3));
        m.giveBack(first, first.highWaterMillis());
        WorkerLease second = store.newManager().borrow(request(ns, 4, centreNow()).withPreferredSlot(3));
        assertThat(second.workerId()).isEqualTo(3);
        assertThat(second.floorMillis()).isGreaterThanOrEqualTo(first.highWaterMillis());

        long stored = store.storedHighWater(ns, 3);
        store.expireLease(ns, 3);
        WorkerLease third = store.newManager().borrow(request(ns, 4, centreNow()).withPreferredSlot(3));
        assertThat(third.workerId()).isEqualTo(3);
        assertThat(third.floorMillis()).isGreaterThanOrEqualTo(stored).isGreaterThanOrEqualTo(second.highWaterMillis());
        assertThat(store.storedOwner(ns, 3)).isEqualTo(third.owner());
    }

    /** Slot 0 was used and returned, slot 3 never: either way exactly one of the borrowers gets it. */
    @Test
    void borrowersPreferringOneSlotAtOnceGetItExactlyOnce() throws Exception {
        onlyForCentresWithPreferredSlots();
        String ns = newNamespace();
        ISequenceManager setup = store.newManager();
        WorkerLease used = setup.borrow(request(ns, 4, centreNow()));
        setup.giveBack(used, used.floorMillis());
        int borrowers = 6;
        List<ISequenceManager> managers = new ArrayList<>();
        for (int i = 0; i < borrowers; i++) {
            managers.add(store.newManager());
        }
        ExecutorService exec = Executors.newFixedThreadPool(borrowers);
        try {
            for (int slot : new int[] {used.workerId(), 3}) {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<WorkerLease>> attempts = new ArrayList<>();
                for (ISequenceManager m : managers) {
                    attempts.add(exec.submit(() -> {
                        go.await();
                        return m.borrow(request(ns, 4, centreNow()).withPreferredSlot(slot));
                    }));
                }
                go.countDown();
                List<WorkerLease> winners = new ArrayList<>();
                for (Future<WorkerLease> f : attempts) {
                    try {
                        winners.add(f.get(60, TimeUnit.SECONDS));
                    } catch (ExecutionException e) {
                        assertThat(e.getCause()).as("a loser of slot %d", slot)
                                .isInstanceOf(WorkerIdTakenException.class);
                    }
                }
                assertThat(winners).as("borrowers that got slot %d", slot).hasSize(1);
                assertThat(winners.get(0).workerId()).isEqualTo(slot);
                assertThat(store.storedOwner(ns, slot)).isEqualTo(winners.get(0).owner());
            }
        } finally {
            exec.shutdownNow();
        }
        assertThat(store.storedOwner(ns, 1)).isNull();
        assertThat(store.storedOwner(ns, 2)).isNull();
    }

    @Test
    void aWorkerFailsOrFallsBackAsConfiguredWhenItsPreferredIdIsHeld() {
        onlyForCentresWithPreferredSlots();
        String ns = agedNamespace(2);
        AbstractIdWorker holder = start(store.newManager(), options(ns, layout(2), centreClock())
                .preferredWorkerId(WorkerIdPreference.fixed(1, WhenTaken.FAIL)).build());
        assertThat(leaseOf(holder).workerId()).isEqualTo(1);

        holder.renew();
        assertThatThrownBy(() -> start(store.newManager(), options(ns, layout(2), centreClock())
                .preferredWorkerId(WorkerIdPreference.fixed(1, WhenTaken.FAIL)).build()))
                .isInstanceOfSatisfying(WorkerIdTakenException.class, e -> assertThat(e.getWorkerId()).isEqualTo(1));
        for (int slot : new int[] {0, 2, 3}) {
            assertThat(store.storedOwner(ns, slot)).as("slot %d after the refused start", slot).isNull();
        }

        holder.renew();
        AbstractIdWorker fallback = start(store.newManager(), options(ns, layout(2), centreClock())
                .preferredWorkerId(WorkerIdPreference.fixed(1, WhenTaken.ANY)).build());
        assertThat(leaseOf(fallback).workerId()).isNotEqualTo(1);
        assertThat(store.storedOwner(ns, 1)).isEqualTo(leaseOf(holder).owner());
        assertThat(holder.decode(holder.nextId()).workerId()).isEqualTo(1);
        assertThat(fallback.decode(fallback.nextId()).workerId()).isEqualTo(leaseOf(fallback).workerId());
    }

    /**
     * A holder that stopped without returning its preferred slot (a crash) stored a high-water ahead of the clock:
     * its successor on the same preferred slot waits until its clock has passed it, as any borrower would.
     */
    @Test
    void aSuccessorOnAPreferredSlotIssuesOnlyAboveTheStoredHighWater() {
        onlyForCentresWithPreferredSlots();
        String ns = agedNamespace(2);
        WorkerIdPreference two = WorkerIdPreference.fixed(2, WhenTaken.FAIL);
        AbstractIdWorker crashed = start(store.newManager(), options(ns, layout(2), centreClock())
                .preferredWorkerId(two).build());
        crashed.nextId();
        crashed.renew();
        long highWater = store.storedHighWater(ns, 2);
        assertThat(highWater).isGreaterThan(centreNow());
        store.expireLease(ns, 2);

        AbstractIdWorker successor = start(store.newManager(), options(ns, layout(2), centreClock())
                .preferredWorkerId(two).build());
        assertThat(leaseOf(successor).workerId()).isEqualTo(2);
        assertThat(leaseOf(successor).floorMillis()).isGreaterThanOrEqualTo(highWater);
        assertThat(successor.decode(successor.nextId()).timestamp().toEpochMilli()).isGreaterThan(highWater);
    }

    /**
     * Slots skipped below a preferred one stay as good as never used when the namespace's loss guard grows later: a
     * borrower with a larger guard takes one with no lower floor than a fresh id gets it (the guard covers holders of
     * a lost earlier generation with a longer ttl, which the skipped ids' first floor, from the smaller guard of the
     * borrower that skipped them, does not).
     */
    @Test
    void aSlotSkippedBelowAPreferredOneGetsAFreshIdsFloorUnderALargerLossGuard() {
        onlyForCentresWithPreferredSlots();
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        Duration guard = TTL.plus(SKEW);
        Duration larger = guard.plusSeconds(30);
        m.borrow(guarded(ns, guard).withPreferredSlot(1)); // slot 0 skipped under the smaller guard
        WorkerLease fresh = m.borrow(guarded(ns, larger).withPreferredSlot(3));
        WorkerLease skipped = m.borrow(guarded(ns, larger).withPreferredSlot(0));
        assertThat(skipped.workerId()).isZero();
        assertThat(skipped.floorMillis()).as("floor of the skipped slot 0 against fresh slot 3's")
                .isGreaterThanOrEqualTo(fresh.floorMillis());
        assertThat(skipped.highWaterMillis()).isGreaterThan(skipped.floorMillis());
    }

    private LeaseRequest guarded(String ns, Duration lossGuard) {
        return new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL, centreNow(), SKEW, "test-host", 42,
                layout(2).pinned(), lossGuard);
    }
}
