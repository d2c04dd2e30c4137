package io.github.idworker.snowflake;

import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

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
 *       heartbeat that renews every {@code heartbeatInterval}: each renewal stores {@code now + ttl} as the new
 *       high-water first, and only once that succeeded may identifiers use timestamps up to it.</li>
 *   <li>{@link #nextId()} is lock-free: the last issued identifier is one {@link AtomicLong}; the next one is the
 *       current millisecond with sequence 0, or the last one plus one within the same millisecond. One compare-
 *       and-set publishes it. Worker id and high-water come from an immutable fence read before the state, and
 *       a candidate whose worker bits or timestamp do not match the fence is never published.</li>
 *   <li>A candidate above the high-water asks for an immediate renewal and waits at most {@code fenceWait};
 *       then it throws {@link LeaseLostException}: the worker fences itself.</li>
 *   <li>A renewal that finds another owner borrows a new slot; the old one keeps serving until the switch,
 *       because its high-water is still its own.</li>
 *   <li>The clock stepping back by at most {@code maxBackward} is absorbed by continuing the sequence of the
 *       last millisecond; a larger step moves to another slot (or throws {@link ClockMovedBackwardsException}).</li>
 *   <li>{@link #close()} swaps the state for a sentinel that no compare-and-set can follow, then returns the
 *       slot with the last issued timestamp as its high-water.</li>
 * </ol>
 */
public abstract class AbstractIdWorker implements IdGenerator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AbstractIdWorker.class);
    /** State of a worker that is not running: its timestamp field is far beyond any clock, so every path checks. */
    private static final long STOPPED = Long.MAX_VALUE;
    private static final String HOST = hostName();

    private final ISequenceManager manager;
    private final WorkerOptions options;
    private final SnowflakeLayout layout;
    private final MillisClock clock;
    private final long epochMillis;
    private final int sequenceBits;
    private final int timestampShift;
    private final long sequenceMask;
    private final long workerField;
    private final long maxBackwardMillis;
    private final long fenceWaitNanos;

    private final AtomicLong state = new AtomicLong(STOPPED);
    private volatile Fence fence;
    private volatile boolean closed;
    private final ReentrantLock leaseLock = new ReentrantLock();
    private final Object fenceSignal = new Object();
    private final AtomicBoolean renewalQueued = new AtomicBoolean();
    private final AtomicLong switches = new AtomicLong();
    private final AtomicLong fenceTrips = new AtomicLong();
    /** The last heartbeat failure since the last good renewal; for {@link #status()}. */
    private volatile String lastRenewalFailure;
    private ScheduledExecutorService heartbeat;
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
        this.maxBackwardMillis = options.maxBackward().toMillis();
        this.fenceWaitNanos = options.fenceWait().toNanos();
    }

    /**
     * Borrows a worker id and starts renewing it. Idempotent.
     *
     * @return this worker
     * @throws io.github.idworker.WorkerIdExhaustedException when the namespace has no free worker id
     * @throws io.github.idworker.CenterUnavailableException when the centre cannot be reached
     */
    public AbstractIdWorker start() {
        leaseLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("worker of namespace '" + options.namespace() + "' is closed");
            }
            if (fence != null) {
                return this;
            }
            WorkerLease lease = borrowAndWait();
            long now = clock.millis() - epochMillis;
            long baseTs = Math.max(lease.floorMillis() - epochMillis + 1, now);
            state.set(baseTs << timestampShift | (long) lease.workerId() << sequenceBits);
            publish(lease);
        } finally {
            leaseLock.unlock();
        }
        WorkerLease lease = fence.lease();
        log.info("idworker namespace '{}' leased worker id {} (floor {}, high-water {}); {}; time bits last until {}",
                options.namespace(), lease.workerId(), Instant.ofEpochMilli(lease.floorMillis()),
                Instant.ofEpochMilli(lease.highWaterMillis()), layout, layout.endOfLife());
        if (options.renewAutomatically()) {
            heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idworker-heartbeat-" + options.namespace());
                t.setDaemon(true);
                return t;
            });
            long period = options.heartbeatInterval().toMillis();
            heartbeat.scheduleWithFixedDelay(this::renewQuietly, period, period, TimeUnit.MILLISECONDS);
        }
        if (options.shutdownHook()) {
            shutdownHook = new Thread(this::close, "idworker-shutdown-" + options.namespace());
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        return this;
    }

    @Override
    public long nextId() {
        for (;;) {
            Fence f = fence;
            long cur = state.get();
            long now = clock.millis() - epochMillis;
            long curTs = cur >>> timestampShift;
            long next;
            if (f == null) {
                throw notRunning();
            }
            if (now > curTs) {
                next = now << timestampShift | f.workerBits;
            } else if (curTs - now > maxBackwardMillis) {
                onLargeBackwardStep(f, curTs, now);
                continue;
            } else if ((cur & sequenceMask) == sequenceMask) {
                awaitNextMillisecond();
                continue;
            } else {
                next = cur + 1;
            }
            if ((next >>> timestampShift) > f.highWaterOffset || (next & workerField) != f.workerBits) {
                awaitFence(f, next);
                continue;
            }
            if (state.compareAndSet(cur, next)) {
                return next;
            }
        }
    }

    /**
     * Returns {@code count} identifiers, reserving as many as fit in the current millisecond with one
     * compare-and-set.
     */
    @Override
    public long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long[] ids = new long[count];
        int filled = 0;
        while (filled < count) {
            Fence f = fence;
            long cur = state.get();
            long now = clock.millis() - epochMillis;
            long curTs = cur >>> timestampShift;
            long first;
            if (f == null) {
                throw notRunning();
            }
            if (now > curTs) {
                first = now << timestampShift | f.workerBits;
            } else if (curTs - now > maxBackwardMillis) {
                onLargeBackwardStep(f, curTs, now);
                continue;
            } else if ((cur & sequenceMask) == sequenceMask) {
                awaitNextMillisecond();
                continue;
            } else {
                first = cur + 1;
            }
            if ((first >>> timestampShift) > f.highWaterOffset || (first & workerField) != f.workerBits) {
                awaitFence(f, first);
                continue;
            }
            int n = (int) Math.min(sequenceMask - (first & sequenceMask) + 1, count - filled);
            if (state.compareAndSet(cur, first + n - 1)) {
                for (int i = 0; i < n; i++) {
                    ids[filled++] = first + i;
                }
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

    /** A snapshot of the lease, the distance to its high-water and the last renewal failure, for health checks. */
    public WorkerStatus status() {
        Fence f = fence;
        return new WorkerStatus(options.namespace(), f == null ? null : f.lease(), clock.millis(), closed,
                switches.get(), fenceTrips.get(), lastRenewalFailure);
    }

    /**
     * Renews the lease now: stores {@code max(high-water, now + ttl)} first, then lets identifiers use it. A
     * renewal that finds another owner moves to a new worker id.
     *
     * @throws LeaseLostException when the lease was lost and no new worker id could be borrowed; the worker
     *         keeps issuing up to the old high-water, which is still its own
     * @throws io.github.idworker.CenterUnavailableException when the centre cannot be reached
     */
    public void renew() {
        leaseLock.lock();
        try {
            Fence f = fence;
            if (f == null) {
                return;
            }
            long proposed = Math.max(f.lease().highWaterMillis(), clock.millis() + options.leaseTtl().toMillis());
            WorkerLease renewed;
            try {
                renewed = manager.renew(f.lease(), proposed);
            } catch (LeaseLostException lost) {
                log.warn("idworker namespace '{}' lost worker id {}: {}; borrowing another",
                        options.namespace(), f.lease().workerId(), lost.getMessage());
                switchWorker(false);
                return;
            }
            if (renewed.workerId() != f.lease().workerId() || renewed.highWaterMillis() < f.lease().highWaterMillis()) {
                throw new IdWorkerException("centre " + manager.getClass().getName()
                        + " broke the ISequenceManager contract: renewal returned " + renewed + " for " + f.lease());
            }
            publish(renewed);
        } finally {
            leaseLock.unlock();
        }
    }

    private void renewQuietly() {
        renewalQueued.set(false);
        try {
            renew();
        } catch (RuntimeException e) {
            lastRenewalFailure = Instant.ofEpochMilli(clock.millis()) + " " + e;
            Fence f = fence;
            log.warn("idworker namespace '{}' could not renew its lease; identifiers continue up to the high-water {}: {}",
                    options.namespace(), f == null ? "-" : Instant.ofEpochMilli(f.lease().highWaterMillis()), e.toString());
        }
    }

    /**
     * Stops issuing and returns the worker id with the last issued timestamp as its high-water. Idempotent.
     */
    @Override
    public void close() {
        leaseLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            Fence f = fence;
            long last = state.getAndSet(STOPPED);
            publish(null);
            if (f != null && last != STOPPED) {
                giveBackQuietly(f.lease(), (last >>> timestampShift) + epochMillis);
            }
        } finally {
            leaseLock.unlock();
        }
        if (heartbeat != null) {
            heartbeat.shutdownNow();
        }
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already running hooks; ours has nothing left to do
            }
        }
    }

    private void awaitFence(Fence f, long candidate) {
        if (fence != f) {
            return;
        }
        if ((candidate & workerField) != f.workerBits) {
            // a worker switch has swapped the state and is about to publish its fence
            Thread.onSpinWait();
            return;
        }
        long ts = candidate >>> timestampShift;
        if (ts > layout.maxTimestampOffset()) {
            throw new IdWorkerException("The timestamp bits of " + layout + " are used up; namespace '"
                    + options.namespace() + "' cannot issue identifiers after " + layout.endOfLife());
        }
        fenceTrips.incrementAndGet();
        requestRenewal();
        long deadline = System.nanoTime() + fenceWaitNanos;
        synchronized (fenceSignal) {
            while (fence == f) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new LeaseLostException("Worker id " + f.lease().workerId() + " of namespace '"
                            + options.namespace() + "' reached its lease high-water "
                            + Instant.ofEpochMilli(f.lease().highWaterMillis()) + " and no renewal succeeded within "
                            + options.fenceWait() + " (idworker.lease.fence-wait); no identifier was issued. "
                            + "Check that the centre is reachable.");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(fenceSignal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LeaseLostException("interrupted while waiting for a lease renewal", e);
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

    private void requestRenewal() {
        ScheduledExecutorService hb = heartbeat;
        if (hb != null && renewalQueued.compareAndSet(false, true)) {
            try {
                hb.execute(this::renewQuietly);
            } catch (RuntimeException rejected) {
                renewalQueued.set(false);
            }
        }
    }

    private void onLargeBackwardStep(Fence f, long curTs, long now) {
        if (f == null || closed || state.get() == STOPPED) {
            throw notRunning();
        }
        if (options.backwardsPolicy() == BackwardsPolicy.FAIL) {
            throw new ClockMovedBackwardsException(options.namespace(), curTs - now, maxBackwardMillis);
        }
        leaseLock.lock();
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
        } finally {
            leaseLock.unlock();
        }
    }

    /**
     * Moves to a newly borrowed worker id. Caller holds {@link #leaseLock}. The state is swapped before the new
     * fence is published, so no compare-and-set based on the old state can succeed afterwards and the value
     * replaced is the last identifier of the old lease.
     */
    private void switchWorker(boolean clockStepBack) {
        Fence old = fence;
        WorkerLease lease = borrowAndWait();
        long floorOffset = lease.floorMillis() - epochMillis;
        long last;
        for (;;) {
            long cur = state.get();
            long now = clock.millis() - epochMillis;
            long baseTs = Math.max(floorOffset + 1, now);
            if (!clockStepBack) {
                baseTs = Math.max(baseTs, (cur >>> timestampShift) + 1);
            }
            if (state.compareAndSet(cur, baseTs << timestampShift | (long) lease.workerId() << sequenceBits)) {
                last = cur;
                break;
            }
        }
        publish(lease);
        switches.incrementAndGet();
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
                ProcessHandle.current().pid()));
        long maxWaitNanos = (ttl + options.maxSkew().toMillis() + 1_000) * 1_000_000L;
        long started = System.nanoTime();
        long now;
        while ((now = clock.millis()) <= lease.floorMillis()) {
            if (System.nanoTime() - started > maxWaitNanos) {
                giveBackQuietly(lease, lease.floorMillis());
                throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + options.namespace()
                        + "' may be used up to " + Instant.ofEpochMilli(lease.floorMillis()) + ", "
                        + (lease.floorMillis() - now) + " ms ahead of this clock; check this host's clock");
            }
            try {
                Thread.sleep(Math.min(lease.floorMillis() - now + 1, 50));
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
                        options.namespace(), lease.workerId(), e.toString());
            }
        }
        return lease;
    }

    private void publish(WorkerLease lease) {
        fence = lease == null ? null : new Fence(lease, (long) lease.workerId() << sequenceBits,
                Math.min(lease.highWaterMillis() - epochMillis, layout.maxTimestampOffset()));
        if (lease != null) {
            lastRenewalFailure = null;
        }
        synchronized (fenceSignal) {
            fenceSignal.notifyAll();
        }
    }

    private void giveBackQuietly(WorkerLease lease, long lastIssuedMillis) {
        try {
            manager.giveBack(lease, lastIssuedMillis);
        } catch (RuntimeException e) {
            log.warn("idworker namespace '{}' could not return worker id {}; it expires with its lease: {}",
                    options.namespace(), lease.workerId(), e.toString());
        }
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
