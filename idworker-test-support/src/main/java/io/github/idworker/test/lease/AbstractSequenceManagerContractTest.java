package io.github.idworker.test.lease;

import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.ManualClock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 *
 * <p>The kit is one chain, a class for each group of rules: {@link SequenceManagerKit} (helpers and time model),
 * {@link AbstractLossGuardContractTest}, {@link AbstractClockBoundContractTest} (rule 13),
 * {@code AbstractLeaseLifecycleContractTest} (borrow, renew, return, expiry), {@code AbstractWorkerFenceContractTest}
 * (high-water fence, clock steps, switches under load, a hung centre), {@code AbstractPreferredSlotContractTest} (a
 * worker id the operator chose) and this class: the pinned layout (rule 8) and
 * partial loss of the centre's data (rule 9).
 */
public abstract class AbstractSequenceManagerContractTest extends AbstractPreferredSlotContractTest {

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
        assertThat(leaseOf(b).workerId()).isZero();
        assertThat(leaseOf(b).floorMillis())
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
}
