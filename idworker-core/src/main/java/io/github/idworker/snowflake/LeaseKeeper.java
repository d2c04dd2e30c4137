package io.github.idworker.snowflake;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.StoreLocations;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker.Fence;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
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

/**
 * Keeps one worker's lease on a single <em>keeper</em> thread, the only one that talks to the centre once the
 * worker runs. Guarantees that a high-water is stored in the centre before the fence lets identifiers use it,
 * that the worker moves to another worker id with one compare-and-set of its state (so no identifier is built
 * over the old worker id afterwards), and that nobody waits for the keeper without a bound.
 *
 * <p>Steps:
 * <ol>
 *   <li>{@link #begin()} starts the keeper, schedules the heartbeat every {@code heartbeatInterval} when renewals
 *       are automatic, and registers the JVM shutdown hook when configured.</li>
 *   <li>A renewal stores {@code max(high-water, now + ttl)} first and publishes the renewed fence only if the
 *       fence is still the one it renewed; a renewal that finds another owner switches to a new worker id. A
 *       failed renewal on the heartbeat is noted (for the status and fenced callers) and retried next beat.</li>
 *   <li>A switch borrows a slot, swaps the state for the new slot's first state (the value it replaces is the
 *       old slot's last identifier), publishes the new fence, and returns the old slot with that timestamp.</li>
 *   <li>{@link #end(long)} has the keeper return the slot with the last issued timestamp, waits at most
 *       {@code fenceWait}, cancels whatever is still queued and stops the keeper.</li>
 * </ol>
 */
final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(AbstractIdWorker.class);

    private final AbstractIdWorker worker;
    private final WorkerOptions options;
    private final AtomicBoolean renewalQueued = new AtomicBoolean();
    private final AtomicBoolean switchQueued = new AtomicBoolean();
    private final AtomicLong switches = new AtomicLong();
    /** The centre's refusal of this clock since the last good renewal or borrow: what fenced callers are told. */
    private volatile @Nullable ClockAheadOfCentreException clockRefusal;
    /** The last centre failure since the last good renewal; for {@link AbstractIdWorker#status()}. */
    private volatile @Nullable String lastRenewalFailure;
    private volatile @Nullable ScheduledExecutorService keeper;
    private volatile @Nullable Thread keeperThread;
    private @Nullable Thread shutdownHook;

    LeaseKeeper(AbstractIdWorker worker) {
        this.worker = worker;
        this.options = worker.options;
    }

    /** Under the worker's start lock, once the first fence is published. */
    void begin() {
        ScheduledExecutorService k = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idworker-keeper-" + options.namespace());
            t.setDaemon(true);
            keeperThread = t;
            return t;
        });
        keeper = k;
        if (options.renewAutomatically()) {
            long period = options.heartbeatInterval().toMillis();
            k.scheduleWithFixedDelay(this::renewQuietly, period, period, TimeUnit.MILLISECONDS);
        }
        if (options.shutdownHook()) {
            shutdownHook = new Thread(worker::close, "idworker-shutdown-" + options.namespace());
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /** A close that raced {@link #begin()}: returns the slot here and stops the keeper it had started. */
    void undoStart(long last) {
        returnOnClose(last);
        ScheduledExecutorService k = keeper;
        if (k != null) {
            k.shutdownNow();
        }
        removeShutdownHook();
    }

    /**
     * The worker is closed and its state stopped at {@code last}: has the keeper return the slot, waiting at most
     * {@code fenceWait}, then stops the keeper.
     */
    void end(long last) {
        ScheduledExecutorService k = keeper;
        if (k != null) {
            try {
                Future<?> returned = k.submit(() -> returnOnClose(last));
                returned.get(worker.fenceWaitNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                Fence f = worker.fence;
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
        Thread hook = shutdownHook;
        if (hook != null && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
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
        Fence f = worker.fence;
        worker.publish(null);
        if (f == null || last == AbstractIdWorker.STOPPED) {
            return;
        }
        if ((last & worker.workerField) != f.workerBits()) {
            log.warn("idworker namespace '{}' cannot tell the last identifier of worker id {}; it expires with its lease",
                    options.namespace(), f.lease().workerId());
            return;
        }
        worker.slots.giveBackQuietly(f.lease(), (last >>> worker.timestampShift) + worker.epochMillis);
    }

    /** Renews on the keeper thread and waits for it; see {@link AbstractIdWorker#renew()}. */
    void renewAndWait() {
        onKeeper(this::renewNow);
    }

    /** A caller reached the high-water: queues one immediate renewal unless one is queued already. */
    void requestRenewal() {
        if (renewalQueued.compareAndSet(false, true)) {
            submitToKeeper(this::renewQuietly, renewalQueued);
        }
    }

    /** The clock stepped back too far under fence {@code f}: queues one switch unless one is queued already. */
    void requestSwitch(Fence f) {
        if (switchQueued.compareAndSet(false, true)) {
            submitToKeeper(() -> switchAfterBackwardStep(f), switchQueued);
        }
    }

    /** Keeper thread only. */
    private void renewNow() {
        Fence f = worker.fence;
        if (f == null || worker.closed) {
            return;
        }
        long proposed = Math.max(f.lease().highWaterMillis(), worker.clock.millis() + options.leaseTtl().toMillis());
        WorkerLease renewed;
        try {
            renewed = worker.manager.renew(f.lease(), proposed);
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
            throw new IdWorkerException("centre " + worker.manager.getClass().getName()
                    + " broke the ISequenceManager contract: renewal returned " + renewed + " for " + f.lease());
        }
        if (worker.fence == f && !worker.closed) {
            worker.publish(renewed);
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

    /** Keeper thread only: moves to another slot unless the step back is over or another switch came first. */
    private void switchAfterBackwardStep(Fence f) {
        switchQueued.set(false);
        try {
            if (worker.fence != f || worker.closed) {
                return;
            }
            long back = (worker.state.get() >>> worker.timestampShift) - (worker.clock.millis() - worker.epochMillis);
            if (back <= worker.maxBackwardMillis) {
                return;
            }
            log.warn("idworker namespace '{}': clock moved backwards by {} ms (tolerated {} ms); leaving worker id {} "
                    + "for another", options.namespace(), back, worker.maxBackwardMillis, f.lease().workerId());
            switchWorker(true);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            noteFailure("could not move to another worker id after the clock moved back", e);
        } finally {
            worker.waits.signalWaiters();
        }
    }

    /**
     * Keeper thread only: moves to a newly borrowed worker id. The state is swapped before the new fence is
     * published, so no compare-and-set based on the old state can succeed afterwards, and the value replaced is
     * the last identifier of the old lease. A worker closed meanwhile gets the new slot back at once.
     */
    private void switchWorker(boolean clockStepBack) {
        Fence old = worker.fence;
        WorkerSlots slots = worker.slots;
        WorkerLease lease = slots.borrowAndWait(false);
        int timestampShift = worker.timestampShift;
        long floorOffset = lease.floorMillis() - worker.epochMillis;
        long last;
        for (;;) {
            long cur = worker.state.get();
            if (cur == AbstractIdWorker.STOPPED) {
                slots.giveBackQuietly(lease, lease.floorMillis());
                return;
            }
            long now = worker.clock.millis() - worker.epochMillis;
            long baseTs = Math.max(floorOffset + 1, now);
            if (!clockStepBack) {
                baseTs = Math.max(baseTs, (cur >>> timestampShift) + 1);
            }
            if (baseTs < 0 || baseTs > worker.maxTimestampOffset) {
                slots.giveBackQuietly(lease, lease.floorMillis());
                throw worker.unusableClock(baseTs);
            }
            if (worker.state.compareAndSet(cur,
                    baseTs << timestampShift | (long) lease.workerId() << worker.sequenceBits)) {
                last = cur;
                break;
            }
        }
        switches.incrementAndGet();
        worker.publish(lease);
        log.info("idworker namespace '{}' moved from worker id {} to {} (floor {})", options.namespace(),
                old == null ? "-" : old.lease().workerId(), lease.workerId(), Instant.ofEpochMilli(lease.floorMillis()));
        if (old != null) {
            slots.giveBackQuietly(old.lease(), (last >>> timestampShift) + worker.epochMillis);
        }
    }

    /** Runs {@code task} on the keeper and waits for it; on the keeper thread itself, runs it directly. */
    private void onKeeper(Runnable task) {
        ScheduledExecutorService k = keeper;
        if (k == null || Thread.currentThread() == keeperThread) {
            if (k != null || worker.fence != null) {
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
        long bound = options.leaseTtl().toNanos() + options.maxSkew().toNanos() + worker.fenceWaitNanos;
        try {
            done.get(bound, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            done.cancel(false);
            throw new LeaseLostException("The lease keeper of namespace '" + options.namespace() + "' did not finish "
                    + "within " + Duration.ofNanos(bound) + " (ttl + max-skew + fence-wait): the centre hangs."
                    + lastFailureSuffix());
        } catch (CancellationException e) {
            throw worker.notRunning();
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

    /** How often the worker moved to another worker id. */
    long switchCount() {
        return switches.get();
    }

    /** The centre's refusal of this clock since the last good renewal or borrow, if any. */
    @Nullable ClockAheadOfCentreException clockRefusal() {
        return clockRefusal;
    }

    /** The last centre failure since the last good renewal, as redacted text, if any. */
    @Nullable String lastRenewalFailure() {
        return lastRenewalFailure;
    }

    /** A new lease was published: what went wrong before no longer describes the worker. */
    void clearFailures() {
        lastRenewalFailure = null;
        clockRefusal = null;
    }

    String lastFailureSuffix() {
        String failure = lastRenewalFailure;
        return failure == null ? "" : " Last centre failure: " + failure;
    }

    private void noteFailure(String what, Throwable e) {
        long now = worker.clock.millis();
        // redacted once here, for the log line as for the endpoint and the idWorker health: a driver's message
        // may quote a connection URL with its password
        if (e instanceof ClockAheadOfCentreException refused) {
            clockRefusal = refused;
        }
        String failure = StoreLocations.redact(e.toString());
        lastRenewalFailure = Instant.ofEpochMilli(now) + " " + failure;
        log.warn("idworker namespace '{}' {}; {}: {}", options.namespace(), what, fenceOutlook(worker.fence, now),
                failure);
    }

    /**
     * What a failed renewal means for callers now: a high-water still ahead leaves time to retry, one already
     * passed stops issuing until a renewal succeeds.
     */
    private String fenceOutlook(@Nullable Fence f, long now) {
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
}
