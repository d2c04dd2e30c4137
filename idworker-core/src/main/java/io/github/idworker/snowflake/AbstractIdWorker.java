package io.github.idworker.snowflake;

import io.github.idworker.StoreLocations;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.TimestampExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;


/**
 * A snowflake worker whose worker id is leased from an {@link ISequenceManager}: it never issues the same
 * identifier twice, and never one that another holder of its worker id could issue.
 *
 * <p>Invariant: every identifier it returns has the worker id of a lease it holds and a timestamp in that
 * lease's {@code (floor, high-water]}, where the high-water was stored in the centre before it was used.
 *
 * <p>Steps:
 * <ol>
 *   <li>{@link #start()} borrows a slot, waits (bounded) until its clock is past the slot's floor, and starts a
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
 */
public abstract class AbstractIdWorker implements IdGenerator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AbstractIdWorker.class);
    /**
     * State of a worker that is not running. Every real state is non-negative; this one reads as a timestamp far
     * beyond any clock and as a used-up sequence, so every path ends in the check for it.
     */
    private static final long STOPPED = -1L;
    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final ISequenceManager manager;
    private final WorkerOptions options;
    private final SnowflakeLayout layout;
    private final MillisClock clock;
    private final long epochMillis;
    private final int sequenceBits;
    private final int timestampShift;
    private final long sequenceMask;
    private final long workerField;
    private final long maxTimestampOffset;
    private final long maxBackwardMillis;
    private final long fenceWaitNanos;

    private final AtomicLong state = new AtomicLong(STOPPED);
    private volatile Fence fence;
    private volatile boolean closed;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Object startLock = new Object();
    private final Object fenceSignal = new Object();
    private final AtomicBoolean renewalQueued = new AtomicBoolean();
    private final AtomicBoolean switchQueued = new AtomicBoolean();
    private final AtomicLong switches = new AtomicLong();
    private final AtomicLong fenceTrips = new AtomicLong();
    /**
     * Identifiers issued, for meters: one uncontended-cell add per call (per reservation in {@link #nextIds}),
     * never a shared compare-and-set, so it costs the hot path a few nanoseconds under any contention.
     */
    private final LongAdder issued = new LongAdder();
    /** The centre's refusal of this clock since the last good renewal or borrow: what fenced callers are told. */
    private volatile ClockAheadOfCentreException clockRefusal;
    /** The last centre failure since the last good renewal; for {@link #status()}. */
    private volatile String lastRenewalFailure;
    private volatile ScheduledExecutorService keeper;
    private volatile Thread keeperThread;
    private Thread shutdownHook;

    /** The worker id and the range of timestamps it may issue, replaced as a whole. */
    private record Fence(WorkerLease lease, long workerBits, long highWaterOffset) {
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
    }

    /**
     * Borrows a worker id and starts renewing it. Idempotent.
     *
     * @return this worker
     * @throws io.github.idworker.WorkerIdExhaustedException when the namespace has no free worker id
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
            WorkerLease lease = borrowAndWait();
            long baseTs = Math.max(lease.floorMillis() - epochMillis + 1, clock.millis() - epochMillis);
            if (closed || baseTs < 0 || baseTs > maxTimestampOffset) {
                giveBackQuietly(lease, lease.floorMillis());
                throw closed ? new IllegalStateException("worker of namespace '" + options.namespace()
                        + "' was closed while it started") : unusableClock(baseTs);
            }
            state.set(baseTs << timestampShift | (long) lease.workerId() << sequenceBits);
            publish(lease);
            keeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idworker-keeper-" + options.namespace());
                t.setDaemon(true);
                keeperThread = t;
                return t;
            });
            if (options.renewAutomatically()) {
                long period = options.heartbeatInterval().toMillis();
                keeper.scheduleWithFixedDelay(this::renewQuietly, period, period, TimeUnit.MILLISECONDS);
            }
            if (options.shutdownHook()) {
                shutdownHook = new Thread(this::close, "idworker-shutdown-" + options.namespace());
                Runtime.getRuntime().addShutdownHook(shutdownHook);
            }
            log.info("idworker namespace '{}' issues IDs with worker id {}; {}; time bits last until {}",
                    options.namespace(), lease.workerId(), layout, layout.endOfLife());
        }
        if (closed) {
            // close() ran after the check above and before the keeper existed: undo the start here
            returnOnClose(state.getAndSet(STOPPED));
            keeper.shutdownNow();
            removeShutdownHook();
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
                awaitFence(f, cur, next, deadline);
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
                awaitFence(f, cur, first, deadline);
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

    public String namespace() {
        return options.namespace();
    }

    /** The lease in use, or {@code null} when the worker is not running. */
    public WorkerLease currentLease() {
        Fence f = fence;
        return f == null ? null : f.lease();
    }

    /** How often this worker moved to another worker id (lease lost, clock stepped back). */
    public long leaseSwitchCount() {
        return switches.get();
    }

    /** How often a caller found the high-water reached and waited for a renewal. */
    public long fenceTripCount() {
        return fenceTrips.get();
    }

    /** How many identifiers this worker has issued since it was created; read from memory. */
    public long issuedCount() {
        return issued.sum();
    }

    /** Who holds the lease, for humans: this host's name and process id, e.g. {@code app-7:4711}. */
    public String holder() {
        return HOST + ":" + PID;
    }

    /** A snapshot of the lease, the distance to its high-water and the last renewal failure, for health checks. */
    public WorkerStatus status() {
        Fence f = fence;
        return new WorkerStatus(options.namespace(), f == null ? null : f.lease(), clock.millis(), closed,
                switches.get(), fenceTrips.get(), lastRenewalFailure);
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
        onKeeper(this::renewNow);
    }

    /** Keeper thread only. */
    private void renewNow() {
        Fence f = fence;
        if (f == null || closed) {
            return;
        }
        long proposed = Math.max(f.lease().highWaterMillis(), clock.millis() + options.leaseTtl().toMillis());
        WorkerLease renewed;
        try {
            renewed = manager.renew(f.lease(), proposed);
        } catch (LeaseLostException lost) {
            log.warn("idworker namespace '{}' lost worker id {}: {}; borrowing another",
                    options.namespace(), f.lease().workerId(), lost.getMessage());
            try {
                switchWorker(false);
            } catch (ClockAheadOfCentreException refused) {
                clockRefusal = refused;
                throw refused;
            }
            return;
        } catch (ClockAheadOfCentreException refused) {
            // the high-water stored before stays this worker's limit: callers past it are told why
            clockRefusal = refused;
            throw refused;
        }
        if (renewed.workerId() != f.lease().workerId() || renewed.highWaterMillis() < f.lease().highWaterMillis()) {
            throw new IdWorkerException("centre " + manager.getClass().getName()
                    + " broke the ISequenceManager contract: renewal returned " + renewed + " for " + f.lease());
        }
        if (fence == f && !closed) {
            publish(renewed);
            log.debug("idworker namespace '{}' renewed worker id {} up to high-water {}", options.namespace(),
                    renewed.workerId(), Instant.ofEpochMilli(renewed.highWaterMillis()));
        }
    }

    private void renewQuietly() {
        renewalQueued.set(false);
        try {
            renewNow();
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            // anything else must not end the periodic heartbeat
            noteFailure("could not renew its lease", e);
        }
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
        signalWaiters();
        ScheduledExecutorService k = keeper;
        if (k != null) {
            try {
                Future<?> returned = k.submit(() -> returnOnClose(last));
                returned.get(fenceWaitNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                Fence f = fence;
                log.warn("idworker namespace '{}' could not return worker id {} within {} (idworker.lease.fence-wait); "
                        + "it expires with its lease", options.namespace(), f == null ? "-" : f.lease().workerId(),
                        options.fenceWait());
            } catch (ExecutionException | RejectedExecutionException e) {
                log.warn("idworker namespace '{}' could not return its worker id; it expires with its lease: {}",
                        options.namespace(), StoreLocations.redact(e.toString()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                // tasks still queued never run: release whoever waits for them
                for (Runnable queued : k.shutdownNow()) {
                    if (queued instanceof Future<?> future) {
                        future.cancel(false);
                    }
                }
            }
        }
        removeShutdownHook();
    }

    private void removeShutdownHook() {
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already running hooks; ours has nothing left to do
            }
        }
    }

    /**
     * Keeper thread (or start() after a racing close). Runs after any switch the keeper had queued, so the fence
     * it reads is the one {@code last} was issued under.
     */
    private void returnOnClose(long last) {
        Fence f = fence;
        publish(null);
        if (f == null || last == STOPPED) {
            return;
        }
        if ((last & workerField) != f.workerBits) {
            log.warn("idworker namespace '{}' cannot tell the last identifier of worker id {}; it expires with its lease",
                    options.namespace(), f.lease().workerId());
            return;
        }
        giveBackQuietly(f.lease(), (last >>> timestampShift) + epochMillis);
    }

    /** The state is sequence-exhausted, stopped, or ahead of the clock. */
    private void awaitClockOrSwitch(Fence f, long cur, long now, long deadline) {
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
        if (options.backwardsPolicy() == BackwardsPolicy.FAIL) {
            throw new ClockMovedBackwardsException(options.namespace(), back, maxBackwardMillis);
        }
        if (f == null) {
            Thread.onSpinWait();
            return;
        }
        if (switchQueued.compareAndSet(false, true)) {
            submitToKeeper(() -> switchAfterBackwardStep(f), switchQueued);
        }
        awaitFenceChange(f, deadline,
                () -> (state.get() >>> timestampShift) - (clock.millis() - epochMillis) > maxBackwardMillis,
                () -> new LeaseLostException("The clock of namespace '" + options.namespace() + "' moved back by "
                        + back + " ms (tolerated " + maxBackwardMillis + " ms, idworker.snowflake.max-backward) and no "
                        + "other worker id could be borrowed within " + options.fenceWait()
                        + " (idworker.lease.fence-wait); no identifier was issued. Check that the centre is reachable."
                        + lastFailureSuffix()));
    }

    /** The candidate does not fit the fence: a switch is being published, or the high-water is reached. */
    private void awaitFence(Fence f, long cur, long candidate, long deadline) {
        if (f == null) {
            if (closed || cur == STOPPED) {
                throw notRunning();
            }
            Thread.onSpinWait();
            return;
        }
        if ((cur & workerField) != f.workerBits) {
            // a switch has swapped the state and is about to publish its fence
            Thread.onSpinWait();
            return;
        }
        if (fence != f) {
            return;
        }
        fenceTrips.incrementAndGet();
        if (options.renewAutomatically() && renewalQueued.compareAndSet(false, true)) {
            submitToKeeper(this::renewQuietly, renewalQueued);
        }
        awaitFenceChange(f, deadline, () -> true, () -> {
            ClockAheadOfCentreException refused = clockRefusal;
            return refused != null ? refused.fencedAt(f.lease().workerId(), f.lease().highWaterMillis())
                    : new LeaseLostException("Worker id " + f.lease().workerId() + " of namespace '"
                    + options.namespace() + "' reached its lease high-water "
                    + Instant.ofEpochMilli(f.lease().highWaterMillis()) + " and no renewal succeeded within "
                    + options.fenceWait() + " (idworker.lease.fence-wait); no identifier was issued. "
                    + "Check that the centre is reachable." + lastFailureSuffix());
        });
    }

    /**
     * Waits until {@code deadline} (the caller's one bound) for the fence to be replaced while
     * {@code stillBlocked} holds; the keeper signals every change and every request it found needless.
     */
    private void awaitFenceChange(Fence f, long deadline, BooleanSupplier stillBlocked,
                                  Supplier<RuntimeException> onTimeout) {
        synchronized (fenceSignal) {
            while (fence == f && !closed && stillBlocked.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw onTimeout.get();
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(fenceSignal, Math.min(left, 10_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LeaseLostException("interrupted while waiting for the lease of namespace '"
                            + options.namespace() + "'", e);
                }
            }
        }
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

    /** Keeper thread only: moves to another slot unless the step back is over or another switch came first. */
    private void switchAfterBackwardStep(Fence f) {
        switchQueued.set(false);
        try {
            if (fence != f || closed) {
                return;
            }
            long back = (state.get() >>> timestampShift) - (clock.millis() - epochMillis);
            if (back <= maxBackwardMillis) {
                return;
            }
            log.warn("idworker namespace '{}': clock moved backwards by {} ms (tolerated {} ms); leaving worker id {} "
                    + "for another", options.namespace(), back, maxBackwardMillis, f.lease().workerId());
            switchWorker(true);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            noteFailure("could not move to another worker id after the clock moved back", e);
        } finally {
            signalWaiters();
        }
    }

    /**
     * Keeper thread only: moves to a newly borrowed worker id. The state is swapped before the new fence is
     * published, so no compare-and-set based on the old state can succeed afterwards, and the value replaced is
     * the last identifier of the old lease. A worker closed meanwhile gets the new slot back at once.
     */
    private void switchWorker(boolean clockStepBack) {
        Fence old = fence;
        WorkerLease lease = borrowAndWait();
        long floorOffset = lease.floorMillis() - epochMillis;
        long last;
        for (;;) {
            long cur = state.get();
            if (cur == STOPPED) {
                giveBackQuietly(lease, lease.floorMillis());
                return;
            }
            long now = clock.millis() - epochMillis;
            long baseTs = Math.max(floorOffset + 1, now);
            if (!clockStepBack) {
                baseTs = Math.max(baseTs, (cur >>> timestampShift) + 1);
            }
            if (baseTs < 0 || baseTs > maxTimestampOffset) {
                giveBackQuietly(lease, lease.floorMillis());
                throw unusableClock(baseTs);
            }
            if (state.compareAndSet(cur, baseTs << timestampShift | (long) lease.workerId() << sequenceBits)) {
                last = cur;
                break;
            }
        }
        switches.incrementAndGet();
        publish(lease);
        log.info("idworker namespace '{}' moved from worker id {} to {} (floor {})", options.namespace(),
                old == null ? "-" : old.lease().workerId(), lease.workerId(), Instant.ofEpochMilli(lease.floorMillis()));
        if (old != null) {
            giveBackQuietly(old.lease(), (last >>> timestampShift) + epochMillis);
        }
    }

    /** Borrows a slot and waits, bounded, until this worker's clock has passed the slot's floor. */
    private WorkerLease borrowAndWait() {
        long ttl = options.leaseTtl().toMillis();
        WorkerLease lease = manager.borrow(new LeaseRequest(options.namespace(), layout.workerCapacity(),
                UUID.randomUUID().toString(), options.leaseTtl(), clock.millis(), options.maxSkew(), HOST,
                PID, layout.pinned(), options.lossGuard()));
        // a floor lies at most the loss guard ahead of the centre's clock, and this clock within max-skew of it
        long maxWaitNanos = (options.lossGuard().toMillis() + options.maxSkew().toMillis() + 1_000) * 1_000_000L;
        long started = System.nanoTime();
        long ahead = lease.floorMillis() - clock.millis();
        if (ahead >= 0) {
            log.info("idworker namespace '{}' waits {} ms before it issues IDs with worker id {}: the worker id's floor "
                    + "{} lies ahead of this clock, because {}", options.namespace(), ahead + 1, lease.workerId(),
                    Instant.ofEpochMilli(lease.floorMillis()), floorReason(ahead, ttl));
        }
        long now;
        while ((now = clock.millis()) <= lease.floorMillis()) {
            if (System.nanoTime() - started > maxWaitNanos || closed) {
                giveBackQuietly(lease, lease.floorMillis());
                throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + options.namespace()
                        + "' may be used up to " + Instant.ofEpochMilli(lease.floorMillis()) + ", "
                        + (lease.floorMillis() - now) + " ms ahead of this clock; "
                        + (closed ? "the worker was closed meanwhile" : "check this host's clock"));
            }
            try {
                Thread.sleep(Math.max(1, Math.min(lease.floorMillis() - now + 1, 50)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                giveBackQuietly(lease, lease.floorMillis());
                throw new LeaseLostException("interrupted while waiting for the clock to pass the lease floor", e);
            }
        }
        if (lease.highWaterMillis() - now < ttl / 2) {
            // a floor ahead of the clock leaves a lease of about one millisecond: extend it before issuing
            try {
                lease = manager.renew(lease, Math.max(lease.highWaterMillis(), now + ttl));
            } catch (RuntimeException e) {
                log.warn("idworker namespace '{}' could not extend its new lease on worker id {}; the heartbeat retries: {}",
                        options.namespace(), lease.workerId(), StoreLocations.redact(e.toString()));
            }
        }
        log.info("idworker namespace '{}' borrowed worker id {} (floor {}, high-water {}, holder {} pid {})",
                options.namespace(), lease.workerId(), Instant.ofEpochMilli(lease.floorMillis()),
                Instant.ofEpochMilli(lease.highWaterMillis()), HOST, PID);
        return lease;
    }

    /**
     * Why a floor lies {@code aheadMillis} ahead of this clock. A past holder's high-water is at most its clock
     * plus the ttl, so a floor further ahead than the ttl is a centre's guard for a record it does not have.
     */
    private String floorReason(long aheadMillis, long ttlMillis) {
        return aheadMillis > ttlMillis
                ? "the centre holds no record of this worker id's past (a namespace new to this centre, or its data "
                        + "was lost or evicted), so no ID is issued until any holder it may have forgotten has reached "
                        + "the end of its lease: idworker.lease.loss-guard = " + options.lossGuard()
                : "an earlier holder of the worker id may have issued IDs up to it";
    }

    /** Runs {@code task} on the keeper and waits for it; on the keeper thread itself, runs it directly. */
    private void onKeeper(Runnable task) {
        ScheduledExecutorService k = keeper;
        if (k == null || Thread.currentThread() == keeperThread) {
            if (k != null || fence != null) {
                task.run();
            }
            return;
        }
        Future<?> done;
        try {
            done = k.submit(task);
        } catch (RejectedExecutionException closedMeanwhile) {
            return;
        }
        long bound = options.leaseTtl().toNanos() + options.maxSkew().toNanos() + fenceWaitNanos;
        try {
            done.get(bound, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            done.cancel(false);
            throw new LeaseLostException("The lease keeper of namespace '" + options.namespace() + "' did not finish "
                    + "within " + Duration.ofNanos(bound) + " (ttl + max-skew + fence-wait): the centre hangs."
                    + lastFailureSuffix());
        } catch (CancellationException e) {
            throw notRunning();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IdWorkerException("lease task of namespace '" + options.namespace() + "' failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseLostException("interrupted while waiting for the lease of namespace '"
                    + options.namespace() + "'", e);
        }
    }

    private void submitToKeeper(Runnable task, AtomicBoolean queuedFlag) {
        ScheduledExecutorService k = keeper;
        try {
            if (k == null) {
                throw new RejectedExecutionException("no keeper");
            }
            k.execute(task);
        } catch (RejectedExecutionException rejected) {
            queuedFlag.set(false);
        }
    }

    private void publish(WorkerLease lease) {
        fence = lease == null ? null : new Fence(lease, (long) lease.workerId() << sequenceBits,
                Math.min(lease.highWaterMillis() - epochMillis, maxTimestampOffset));
        if (lease != null) {
            lastRenewalFailure = null;
            clockRefusal = null;
        }
        signalWaiters();
    }

    private void signalWaiters() {
        synchronized (fenceSignal) {
            fenceSignal.notifyAll();
        }
    }

    private void noteFailure(String what, Throwable e) {
        long now = clock.millis();
        // redacted once here, for the log line as for the endpoint and the idWorker health: a driver's message
        // may quote a connection URL with its password
        if (e instanceof ClockAheadOfCentreException refused) {
            clockRefusal = refused;
        }
        String failure = StoreLocations.redact(e.toString());
        lastRenewalFailure = Instant.ofEpochMilli(now) + " " + failure;
        log.warn("idworker namespace '{}' {}; {}: {}", options.namespace(), what, fenceOutlook(fence, now), failure);
    }

    /**
     * What a failed renewal means for callers now: a high-water still ahead leaves time to retry, one already
     * passed stops issuing until a renewal succeeds.
     */
    private String fenceOutlook(Fence f, long now) {
        if (f == null) {
            return "no worker id is held";
        }
        long left = f.lease().highWaterMillis() - now;
        Instant highWater = Instant.ofEpochMilli(f.lease().highWaterMillis());
        return left > 0
                ? "IDs continue for " + left + " ms more, up to the high-water " + highWater
                : "no IDs are issued: the high-water " + highWater + " passed " + (-left) + " ms ago, so callers wait "
                        + "up to idworker.lease.fence-wait (" + options.fenceWait() + ") and then get "
                        + "LeaseLostException until a renewal succeeds";
    }

    private String lastFailureSuffix() {
        String failure = lastRenewalFailure;
        return failure == null ? "" : " Last centre failure: " + failure;
    }

    private void giveBackQuietly(WorkerLease lease, long lastIssuedMillis) {
        if (lastIssuedMillis < lease.floorMillis() || lastIssuedMillis > lease.highWaterMillis()) {
            // never store a high-water the lease cannot have reached: it could lock the slot for ever
            log.warn("idworker namespace '{}' leaves worker id {} to expire: its last timestamp {} lies outside the "
                    + "lease ({}, {}]", options.namespace(), lease.workerId(), lastIssuedMillis, lease.floorMillis(),
                    lease.highWaterMillis());
            return;
        }
        try {
            manager.giveBack(lease, lastIssuedMillis);
            log.info("idworker namespace '{}' returned worker id {} (high-water {}, the last issued timestamp; holder "
                    + "{} pid {})", options.namespace(), lease.workerId(), Instant.ofEpochMilli(lastIssuedMillis), HOST,
                    PID);
        } catch (RuntimeException e) {
            log.warn("idworker namespace '{}' could not return worker id {}; it expires with its lease: {}",
                    options.namespace(), lease.workerId(), StoreLocations.redact(e.toString()));
        }
    }

    private IdWorkerException unusableClock(long baseTs) {
        return baseTs < 0
                ? ClockMovedBackwardsException.beforeEpoch(options.namespace(), Instant.ofEpochMilli(baseTs + epochMillis),
                        layout.epoch())
                : timestampExhausted(baseTs);
    }

    private TimestampExhaustedException timestampExhausted(long nowOffset) {
        return new TimestampExhaustedException(options.namespace(), layout.endOfLife(),
                Instant.ofEpochMilli(nowOffset + epochMillis));
    }

    private IllegalStateException notRunning() {
        return new IllegalStateException("idworker worker of namespace '" + options.namespace() + "' is "
                + (closed ? "closed" : "not started; call start()"));
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }

    @Override
    public String toString() {
        Fence f = fence;
        return getClass().getSimpleName() + "[namespace=" + options.namespace() + ", workerId="
                + (f == null ? "-" : f.lease().workerId()) + "]";
    }
}
