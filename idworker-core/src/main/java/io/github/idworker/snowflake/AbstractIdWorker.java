package io.github.idworker.snowflake;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.TimestampExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.WorkerLease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A snowflake worker whose worker id is leased from an {@link ISequenceManager}: it never issues the same
 * identifier twice, and never one that another holder of its worker id could issue.
 *
 * <p>Invariant: every identifier it returns has the worker id of a lease it holds and a timestamp in that
 * lease's {@code (floor, high-water]}, where the high-water was stored in the centre before it was used.
 *
 * <p>Steps:
 * <ol>
 *   <li>{@link #start()} borrows a slot (its preferred worker id first when it has one, see
 *       {@link WorkerIdPreference}), waits (bounded) until its clock is past the slot's floor, and starts a
 *       single <em>keeper</em> thread. Only the keeper talks to the centre afterwards: the heartbeat renews every
 *       {@code heartbeatInterval} (storing {@code now + ttl} as the new high-water first; only once that
 *       succeeded may identifiers use timestamps up to it), moves to another slot and returns the slot on close.
 *       Callers never hold a lock across a centre call and never wait for the keeper longer than
 *       {@code fenceWait}, so a hung centre fences the worker instead of freezing callers or shutdown.</li>
 *   <li>{@link #nextId()} is lock-free: the last issued identifier is one {@link AtomicLong}; the next one is the
 *       current millisecond with sequence 0, or the last one plus one within the same millisecond. Its worker
 *       bits are always taken from the state the compare-and-set replaces, never from a fence read earlier, and
 *       it is published only when those worker bits are the fence's and its timestamp is at most the fence's
 *       high-water: a candidate built over a state another thread has just switched can never be published.</li>
 *   <li>A candidate above the high-water asks the keeper for an immediate renewal and waits at most
 *       {@code fenceWait}; then it throws {@link LeaseLostException}: the worker fences itself. A timestamp past
 *       the layout's last instant throws {@link TimestampExhaustedException} instead of wrapping.</li>
 *   <li>A renewal that finds another owner borrows a new slot; the old one keeps serving until the switch,
 *       because its high-water is still its own.</li>
 *   <li>A centre refuses a borrow or renewal whose worker clock runs more than {@code maxSkew} ahead of its own
 *       ({@link ClockAheadOfCentreException}, DESIGN rule 13). A refused borrow fails {@link #start()}; after a
 *       refused renewal the worker keeps issuing up to the high-water it stored before, then callers get that
 *       exception (after {@code fenceWait}, in case the clock is corrected meanwhile), never an identifier.</li>
 *   <li>The clock stepping back by at most {@code maxBackward} is absorbed by continuing the sequence of the
 *       last millisecond; a larger step asks the keeper to move to another slot (or throws
 *       {@link ClockMovedBackwardsException}) and waits at most {@code fenceWait} for it.</li>
 *   <li>A switch swaps the state for the new slot's first state with one compare-and-set (the value it replaces
 *       is the old slot's last identifier), then publishes the new fence and returns the old slot.</li>
 *   <li>{@link #close()} swaps the state for a sentinel that no compare-and-set can follow, then has the keeper
 *       return the slot with the last issued timestamp as its high-water, waiting at most {@code fenceWait}; a
 *       slot it could not return expires with its lease.</li>
 * </ol>
 *
 * <p>This class holds the per-call path (step 2, and the checks of steps 3 and 6); the rest lives in package-private
 * collaborators that share its state: {@code WorkerSlots} borrows and returns slots, {@code LeaseKeeper} runs the
 * keeper thread (heartbeat, renewals, switches, the return on close), {@code FenceWaits} holds callers that
 * cannot issue now until the keeper changed the fence or their bound ran out.
 */
public abstract class AbstractIdWorker implements IdGenerator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AbstractIdWorker.class);
    /**
     * State of a worker that is not running. Every real state is non-negative; this one reads as a timestamp far
     * beyond any clock and as a used-up sequence, so every path ends in the check for it.
     */
    static final long STOPPED = -1L;

    final ISequenceManager manager;
    final WorkerOptions options;
    final SnowflakeLayout layout;
    final MillisClock clock;
    final long epochMillis;
    final int sequenceBits;
    final int timestampShift;
    private final long sequenceMask;
    final long workerField;
    final long maxTimestampOffset;
    final long maxBackwardMillis;
    final long fenceWaitNanos;

    final AtomicLong state = new AtomicLong(STOPPED);
    volatile @Nullable Fence fence;
    volatile boolean closed;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Object startLock = new Object();
    /**
     * Identifiers issued, for meters: one uncontended-cell add per call (per reservation in {@link #nextIds}),
     * never a shared compare-and-set, so it costs the hot path a few nanoseconds under any contention.
     */
    private final LongAdder issued = new LongAdder();
    final WorkerSlots slots;
    final FenceWaits waits;
    final LeaseKeeper keeper;

    /** The worker id and the range of timestamps it may issue, replaced as a whole. */
    record Fence(WorkerLease lease, long workerBits, long highWaterOffset) {
    }

    protected AbstractIdWorker(ISequenceManager manager, WorkerOptions options) {
        if (manager == null) {
            throw new IllegalArgumentException("manager must not be null");
        }
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        this.manager = manager;
        this.options = options;
        this.layout = options.layout();
        this.clock = options.clock();
        this.epochMillis = layout.epochMillis();
        this.sequenceBits = layout.sequenceBits();
        this.timestampShift = layout.sequenceBits() + layout.workerBits();
        this.sequenceMask = layout.maxSequence();
        this.workerField = (layout.workerCapacity() - 1L) << sequenceBits;
        this.maxTimestampOffset = layout.maxTimestampOffset();
        this.maxBackwardMillis = options.maxBackward().toMillis();
        this.fenceWaitNanos = options.fenceWait().toNanos();
        // last: the collaborators read the fields above, never in their constructors
        this.slots = new WorkerSlots(this);
        this.waits = new FenceWaits(this);
        this.keeper = new LeaseKeeper(this);
    }

    /**
     * Borrows a worker id and starts renewing it. Idempotent.
     *
     * @return this worker
     * @throws io.github.idworker.WorkerIdExhaustedException when the namespace has no free worker id
     * @throws io.github.idworker.WorkerIdTakenException when the preferred worker id is held by another live
     *         worker and {@link WhenTaken#FAIL} is set
     * @throws io.github.idworker.LayoutMismatchException when the namespace is pinned to another layout
     * @throws io.github.idworker.CenterUnavailableException when the centre cannot be reached
     * @throws ClockAheadOfCentreException when this clock runs more than max-skew ahead of the centre's
     */
    public AbstractIdWorker start() {
        synchronized (startLock) {
            if (closed) {
                throw new IllegalStateException("worker of namespace '" + options.namespace() + "' is closed");
            }
            if (fence != null) {
                return this;
            }
            WorkerLease lease = slots.borrowAndWait(true);
            long baseTs = Math.max(lease.floorMillis() - epochMillis + 1, clock.millis() - epochMillis);
            if (closed || baseTs < 0 || baseTs > maxTimestampOffset) {
                slots.giveBackQuietly(lease, lease.floorMillis());
                throw closed ? new IllegalStateException("worker of namespace '" + options.namespace()
                        + "' was closed while it started") : unusableClock(baseTs);
            }
            state.set(baseTs << timestampShift | (long) lease.workerId() << sequenceBits);
            publish(lease);
            keeper.begin();
            log.info("idworker namespace '{}' issues IDs with worker id {}; {}; time bits last until {}",
                    options.namespace(), lease.workerId(), layout, layout.endOfLife());
        }
        if (closed) {
            // close() ran after the check above and before the keeper existed: undo the start here
            keeper.undoStart(state.getAndSet(STOPPED));
            throw new IllegalStateException("worker of namespace '" + options.namespace() + "' was closed while it started");
        }
        return this;
    }

    @Override
    public long nextId() {
        // one bound for all waits of this call, however often the fence is replaced meanwhile
        long deadline = 0;
        for (;;) {
            long cur = state.get();
            Fence f = fence;
            long now = clock.millis() - epochMillis;
            long curTs = cur >>> timestampShift;
            long next;
            if (now > curTs) {
                if (now > maxTimestampOffset) {
                    throw timestampExhausted(now);
                }
                // worker bits of the state being replaced, never of a fence read earlier (rule 12)
                next = now << timestampShift | (cur & workerField);
            } else if (curTs - now <= maxBackwardMillis && (cur & sequenceMask) != sequenceMask) {
                next = cur + 1;
            } else {
                deadline = deadline != 0 ? deadline : System.nanoTime() + fenceWaitNanos;
                awaitClockOrSwitch(f, cur, now, deadline);
                continue;
            }
            if (f == null || (cur & workerField) != f.workerBits || (next >>> timestampShift) > f.highWaterOffset) {
                deadline = deadline != 0 ? deadline : System.nanoTime() + fenceWaitNanos;
                waits.awaitFence(f, cur, deadline);
                continue;
            }
            if (state.compareAndSet(cur, next)) {
                issued.increment();
                return next;
            }
        }
    }

    /**
     * Returns {@code count} identifiers, reserving as many as fit in the current millisecond with one
     * compare-and-set; every reservation is checked like {@link #nextId()}.
     */
    @Override
    public long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long[] ids = new long[count];
        int filled = 0;
        long deadline = 0;
        while (filled < count) {
            long cur = state.get();
            Fence f = fence;
            long now = clock.millis() - epochMillis;
            long curTs = cur >>> timestampShift;
            long first;
            if (now > curTs) {
                if (now > maxTimestampOffset) {
                    throw timestampExhausted(now);
                }
                first = now << timestampShift | (cur & workerField);
            } else if (curTs - now <= maxBackwardMillis && (cur & sequenceMask) != sequenceMask) {
                first = cur + 1;
            } else {
                deadline = deadline != 0 ? deadline : System.nanoTime() + fenceWaitNanos;
                awaitClockOrSwitch(f, cur, now, deadline);
                continue;
            }
            if (f == null || (cur & workerField) != f.workerBits || (first >>> timestampShift) > f.highWaterOffset) {
                deadline = deadline != 0 ? deadline : System.nanoTime() + fenceWaitNanos;
                waits.awaitFence(f, cur, deadline);
                continue;
            }
            int n = (int) Math.min(sequenceMask - (first & sequenceMask) + 1, count - filled);
            if (state.compareAndSet(cur, first + n - 1)) {
                issued.add(n);
                for (int i = 0; i < n; i++) {
                    ids[filled++] = first + i;
                }
                deadline = 0;
            }
        }
        return ids;
    }

    /** Splits an identifier issued with this worker's layout. */
    public DecodedId decode(long id) {
        return layout.decode(id);
    }

    public SnowflakeLayout layout() {
        return layout;
    }

    /** The settings this worker was built with, among them the lease ttl and the heartbeat interval it renews at. */
    public WorkerOptions options() {
        return options;
    }

    public String namespace() {
        return options.namespace();
    }

    /** The lease in use, or {@code null} when the worker is not running. */
    public @Nullable WorkerLease currentLease() {
        Fence f = fence;
        return f == null ? null : f.lease();
    }

    /** How often this worker moved to another worker id (lease lost, clock stepped back). */
    public long leaseSwitchCount() {
        return keeper.switchCount();
    }

    /** How often a caller found the high-water reached and waited for a renewal. */
    public long fenceTripCount() {
        return waits.tripCount();
    }

    /** How many identifiers this worker has issued since it was created; read from memory. */
    public long issuedCount() {
        return issued.sum();
    }

    /** Who holds the lease, for humans: this host's name and process id, e.g. {@code app-7:4711}. */
    public String holder() {
        return WorkerSlots.HOST + ":" + WorkerSlots.PID;
    }

    /** A snapshot of the lease, the distance to its high-water and the last renewal failure, for health checks. */
    public WorkerStatus status() {
        Fence f = fence;
        return new WorkerStatus(options.namespace(), f == null ? null : f.lease(), clock.millis(), closed,
                keeper.switchCount(), waits.tripCount(), keeper.lastRenewalFailure());
    }

    /**
     * Renews the lease now, on the keeper thread, and waits for it: stores {@code max(high-water, now + ttl)}
     * first, then lets identifiers use it. A renewal that finds another owner moves to a new worker id.
     *
     * @throws LeaseLostException when the lease was lost and no new worker id could be borrowed; the worker
     *         keeps issuing up to the old high-water, which is still its own
     * @throws io.github.idworker.CenterUnavailableException when the centre cannot be reached
     */
    public void renew() {
        keeper.renewAndWait();
    }

    /**
     * Stops issuing at once and returns the worker id with the last issued timestamp as its high-water, waiting
     * at most {@code fenceWait} for the centre; a worker id it could not return expires with its lease.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        long last = state.getAndSet(STOPPED);
        waits.signalWaiters();
        keeper.end(last);
    }

    /** The state is sequence-exhausted, stopped, or ahead of the clock. */
    private void awaitClockOrSwitch(@Nullable Fence f, long cur, long now, long deadline) {
        if (cur == STOPPED || closed) {
            throw notRunning();
        }
        if (now < 0) {
            // no slot helps a clock before the epoch; moving would only wear out slots
            throw ClockMovedBackwardsException.beforeEpoch(options.namespace(), Instant.ofEpochMilli(now + epochMillis),
                    layout.epoch());
        }
        long back = (cur >>> timestampShift) - now;
        if (back <= maxBackwardMillis) {
            awaitNextMillisecond();
            return;
        }
        waits.awaitBackwardStep(f, back, deadline);
    }

    /**
     * The sequence of the current millisecond is used up: the only wait on the normal path. It spins: measured
     * side by side, parking for even 50 us lost 15 to 25 % of the 4.096 M ids/s ceiling with two callers,
     * spinning none of it.
     */
    private void awaitNextMillisecond() {
        if (Thread.currentThread().isInterrupted()) {
            throw new IdWorkerException("interrupted while waiting for the clock of namespace '"
                    + options.namespace() + "' to reach the next millisecond");
        }
        Thread.onSpinWait();
    }

    /** Replaces the fence as a whole ({@code null}: the worker holds no lease) and wakes every waiting caller. */
    void publish(@Nullable WorkerLease lease) {
        fence = lease == null ? null : new Fence(lease, (long) lease.workerId() << sequenceBits,
                Math.min(lease.highWaterMillis() - epochMillis, maxTimestampOffset));
        if (lease != null) {
            keeper.clearFailures();
        }
        waits.signalWaiters();
    }

    IdWorkerException unusableClock(long baseTs) {
        return baseTs < 0
                ? ClockMovedBackwardsException.beforeEpoch(options.namespace(), Instant.ofEpochMilli(baseTs + epochMillis),
                        layout.epoch())
                : timestampExhausted(baseTs);
    }

    private TimestampExhaustedException timestampExhausted(long nowOffset) {
        return new TimestampExhaustedException(options.namespace(), layout.endOfLife(),
                Instant.ofEpochMilli(nowOffset + epochMillis));
    }

    IllegalStateException notRunning() {
        return new IllegalStateException("idworker worker of namespace '" + options.namespace() + "' is "
                + (closed ? "closed" : "not started; call start()"));
    }

    @Override
    public String toString() {
        Fence f = fence;
        return getClass().getSimpleName() + "[namespace=" + options.namespace() + ", workerId="
                + (f == null ? "-" : f.lease().workerId()) + "]";
    }
}
