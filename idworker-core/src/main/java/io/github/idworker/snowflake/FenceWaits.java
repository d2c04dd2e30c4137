package io.github.idworker.snowflake;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.snowflake.AbstractIdWorker.Fence;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Holds callers of one worker that cannot issue now, off the per-call path. Guarantees that such a caller issues
 * nothing while it waits, is woken by every change of the fence (and every request the keeper found needless),
 * and waits no longer than its one bound, {@code fenceWait} from its first wait; then it gets a typed exception.
 *
 * <p>Steps:
 * <ol>
 *   <li>No fence, or one being replaced by a switch: spin until the new fence is published (or throw when the
 *       worker is stopped).</li>
 *   <li>A candidate above the high-water counts a fence trip, asks the keeper for an immediate renewal and waits
 *       for the fence to change; the centre's refusal of this clock, or {@link LeaseLostException}, on timeout.</li>
 *   <li>The clock stepped back beyond {@code maxBackward}: throw with {@link BackwardsPolicy#FAIL}, otherwise ask
 *       the keeper to move to another worker id and wait while the step lasts and the fence is unchanged.</li>
 * </ol>
 */
final class FenceWaits {

    private final AbstractIdWorker worker;
    /** The keeper notifies it on every fence change; callers blocked on the fence wait on it. */
    private final Object fenceSignal = new Object();
    private final AtomicLong trips = new AtomicLong();

    FenceWaits(AbstractIdWorker worker) {
        this.worker = worker;
    }

    /** How often a caller found the high-water reached and waited for a renewal. */
    long tripCount() {
        return trips.get();
    }

    /** The candidate does not fit the fence: a switch is being published, or the high-water is reached. */
    void awaitFence(@Nullable Fence f, long cur, long deadline) {
        if (f == null) {
            if (worker.closed || cur == AbstractIdWorker.STOPPED) {
                throw worker.notRunning();
            }
            Thread.onSpinWait();
            return;
        }
        if ((cur & worker.workerField) != f.workerBits()) {
            // a switch has swapped the state and is about to publish its fence
            Thread.onSpinWait();
            return;
        }
        if (worker.fence != f) {
            return;
        }
        trips.incrementAndGet();
        LeaseKeeper keeper = worker.keeper;
        if (worker.options.renewAutomatically()) {
            keeper.requestRenewal();
        }
        awaitFenceChange(f, deadline, () -> true, () -> {
            ClockAheadOfCentreException refused = keeper.clockRefusal();
            return refused != null ? refused.fencedAt(f.lease().workerId(), f.lease().highWaterMillis())
                    : new LeaseLostException("Worker id " + f.lease().workerId() + " of namespace '"
                    + worker.options.namespace() + "' reached its lease high-water "
                    + Instant.ofEpochMilli(f.lease().highWaterMillis()) + " and no renewal succeeded within "
                    + worker.options.fenceWait() + " (idworker.lease.fence-wait); no identifier was issued. "
                    + "Check that the centre is reachable." + keeper.lastFailureSuffix());
        });
    }

    /** The clock is {@code back} ms behind the state, more than {@code maxBackward} tolerates. */
    void awaitBackwardStep(@Nullable Fence f, long back, long deadline) {
        WorkerOptions options = worker.options;
        long maxBackwardMillis = worker.maxBackwardMillis;
        if (options.backwardsPolicy() == BackwardsPolicy.FAIL) {
            throw new ClockMovedBackwardsException(options.namespace(), back, maxBackwardMillis);
        }
        if (f == null) {
            Thread.onSpinWait();
            return;
        }
        worker.keeper.requestSwitch(f);
        awaitFenceChange(f, deadline,
                () -> (worker.state.get() >>> worker.timestampShift) - (worker.clock.millis() - worker.epochMillis)
                        > maxBackwardMillis,
                () -> new LeaseLostException("The clock of namespace '" + options.namespace() + "' moved back by "
                        + back + " ms (tolerated " + maxBackwardMillis + " ms, idworker.snowflake.max-backward) and no "
                        + "other worker id could be borrowed within " + options.fenceWait()
                        + " (idworker.lease.fence-wait); no identifier was issued. Check that the centre is reachable."
                        + worker.keeper.lastFailureSuffix()));
    }

    /** Wakes every caller waiting for the fence to change. */
    void signalWaiters() {
        synchronized (fenceSignal) {
            fenceSignal.notifyAll();
        }
    }

    /**
     * Waits until {@code deadline} (the caller's one bound) for the fence to be replaced while
     * {@code stillBlocked} holds; the keeper signals every change and every request it found needless.
     */
    private void awaitFenceChange(Fence f, long deadline, BooleanSupplier stillBlocked,
                                  Supplier<RuntimeException> onTimeout) {
        synchronized (fenceSignal) {
            while (worker.fence == f && !worker.closed && stillBlocked.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw onTimeout.get();
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(fenceSignal, Math.min(left, 10_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LeaseLostException("interrupted while waiting for the lease of namespace '"
                            + worker.options.namespace() + "'", e);
                }
            }
        }
    }
}
