package io.github.idworker.test.lease;

import io.github.idworker.LossGuardLoweredException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.WorkerOptions;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract kit's tests of the loss guard ({@code idworker.lease.loss-guard}), run for every centre by
 * {@link AbstractSequenceManagerContractTest}. After a loss of the centre's data the first borrower sets the floors
 * to the centre's clock + its loss guard, a value fixed by configuration and shared by the namespace's workers,
 * not its own ttl + max-skew: a borrower with a short ttl must not start below the high-water of a holder with a
 * long one (a rolling change of {@code idworker.lease.ttl}, two applications sharing a namespace). While the centre
 * keeps the namespace's record, a borrower with a smaller loss guard than the largest stored is refused.
 */
public abstract class AbstractLossGuardContractTest extends SequenceManagerKit {

    /** The holder with the long lease: ttl 3 s. */
    private static final Duration LONG_TTL = Duration.ofSeconds(3);
    /** The successor with the short lease: ttl 1 s. */
    private static final Duration SHORT_TTL = Duration.ofSeconds(1);
    /** Both workers' loss guard: at least the long ttl + max-skew. */
    private static final Duration SHARED_GUARD = Duration.ofSeconds(4);

    AbstractLossGuardContractTest() {
    }

    private LeaseRequest guarded(String ns, int slotCount, Duration ttl, Duration lossGuard) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), ttl, centreNow(), SKEW, "test-host", 42,
                layout(Integer.numberOfTrailingZeros(slotCount)).pinned(), lossGuard);
    }

    /**
     * A holds the only worker id with a 3 s ttl and renewed it (high-water about the centre's clock + 3 s); the
     * centre loses the namespace; B, with a 1 s ttl and the same loss guard of 4 s, borrows the worker id. Its floor
     * must lie at or above A's high-water (A may still issue up to it until it notices the loss), and at least the
     * centre's clock + the loss guard when the loss was found — not B's own ttl + max-skew.
     */
    @Test
    void aSuccessorWithAShorterTtlStartsAboveTheHighWaterOfAHolderWithALongerOneAfterALoss() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease a = m.borrow(guarded(ns, 1, LONG_TTL, SHARED_GUARD));
        // a new namespace's floor lies ahead of the clock: wait for it, then renew as the holder's heartbeat would
        while (store.centreNowMillis() <= a.floorMillis() + 1) {
            sleepQuietly(50);
        }
        a = m.renew(a, Math.max(a.highWaterMillis(), centreNow() + LONG_TTL.toMillis()));
        afterThisMillisecond();

        store.deleteNamespace(ns);
        long lossSeen = centreNow();
        WorkerLease b = store.newManager().borrow(guarded(ns, 1, SHORT_TTL, SHARED_GUARD));
        System.out.printf("KIT-RESULT %s loss-guard holderHighWater=%d successorFloor=%d (floor - high-water = %d ms)%n",
                getClass().getSimpleName(), a.highWaterMillis(), b.floorMillis(),
                b.floorMillis() - a.highWaterMillis());
        assertThat(b.workerId()).isEqualTo(a.workerId());
        assertThat(b.floorMillis()).as("the successor's floor, against the holder's high-water")
                .isGreaterThanOrEqualTo(a.highWaterMillis())
                .isGreaterThanOrEqualTo(lossSeen + SHARED_GUARD.toMillis() - CENTRE_CLOCK_TOLERANCE_MS);
    }

    /**
     * While the centre keeps the namespace's record, a borrow whose loss guard is smaller than the namespace's is
     * refused with {@link LossGuardLoweredException} naming the property, both values and the way out, and claims
     * nothing; a larger one is accepted and raises the namespace's, after which the old value is refused too; a
     * worker configured with a smaller one does not start. (Across a loss of the record it cannot be told.)
     */
    @Test
    void aBorrowWithASmallerLossGuardThanTheNamespacesIsRefusedWhileItsRecordExists() {
        String ns = newNamespace();
        ISequenceManager m = store.newManager();
        WorkerLease held = m.borrow(guarded(ns, 4, SHORT_TTL, SHARED_GUARD));
        Duration smaller = SHARED_GUARD.minusMillis(500);
        assertThatThrownBy(() -> store.newManager().borrow(guarded(ns, 4, SHORT_TTL, smaller)))
                .isInstanceOfSatisfying(LossGuardLoweredException.class, e -> {
                    assertThat(e.getNamespace()).isEqualTo(ns);
                    assertThat(e.getStoredGuardMillis()).isEqualTo(SHARED_GUARD.toMillis());
                    assertThat(e.getRequestedGuardMillis()).isEqualTo(smaller.toMillis());
                    assertThat(e.getProperty()).isEqualTo("idworker.lease.loss-guard");
                    assertThat(e.getMessage()).contains(ns, "idworker.lease.loss-guard",
                            SHARED_GUARD.toMillis() + " ms", smaller.toMillis() + " ms",
                            "use a new idworker.namespace to lower it");
                });
        for (int slot = 0; slot < 4; slot++) {
            if (slot != held.workerId()) {
                assertThat(store.storedOwner(ns, slot)).as("worker id %d claimed by a refused borrow", slot).isNull();
            }
        }
        Duration larger = SHARED_GUARD.plusMillis(500);
        WorkerLease raised = store.newManager().borrow(guarded(ns, 4, SHORT_TTL, larger));
        assertThat(store.storedOwner(ns, raised.workerId())).isEqualTo(raised.owner());
        assertThatThrownBy(() -> store.newManager().borrow(guarded(ns, 4, SHORT_TTL, SHARED_GUARD)))
                .isInstanceOf(LossGuardLoweredException.class);

        WorkerOptions lowered = options(ns, layout(2), centreClock()).leaseTtl(SHORT_TTL)
                .lossGuard(SHARED_GUARD).build();
        assertThatThrownBy(() -> start(store.newManager(), lowered))
                .isInstanceOf(LossGuardLoweredException.class)
                .hasMessageContaining("idworker.lease.loss-guard");
    }
}
