package io.github.idworker.snowflake;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.StoreLocations;
import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.time.Instant;
import java.util.UUID;

/**
 * Borrows and returns one worker's slots in the centre. Guarantees that a borrowed slot is handed out only once
 * this worker's clock has passed the slot's floor (so no identifier repeats one an earlier holder may have
 * issued), and that a slot is returned only with a high-water inside its lease, never one that could lock it.
 *
 * <p>Borrowing:
 * <ol>
 *   <li>Claim a slot with a fresh owner token, this clock, and the pinned layout (one conditional centre call). At
 *       the start of a worker with a preferred worker id ({@link WorkerOptions#preferredWorkerId()}), claim only
 *       that one; when a live lease of another worker holds it, log it and either throw
 *       {@link WorkerIdTakenException} ({@link WhenTaken#FAIL}) or claim any slot ({@link WhenTaken#ANY}). A
 *       centre that hands out another slot than the preferred one breaks the contract: give it back and throw.</li>
 *   <li>Wait, sleeping at most 50 ms at a time and bounded by the loss guard plus max-skew plus a second, until
 *       this clock has passed the floor; give the slot back and throw {@link LeaseLostException} when the bound
 *       runs out, the worker is closed meanwhile or the thread is interrupted.</li>
 *   <li>Extend a lease that the wait has left shorter than half the ttl; the heartbeat retries if that fails.</li>
 * </ol>
 */
final class WorkerSlots {

    private static final Logger log = LoggerFactory.getLogger(AbstractIdWorker.class);
    static final String HOST = hostName();
    static final long PID = ProcessHandle.current().pid();

    private final AbstractIdWorker worker;

    WorkerSlots(AbstractIdWorker worker) {
        this.worker = worker;
    }

    /**
     * Borrows a slot and waits, bounded, until this worker's clock has passed the slot's floor.
     *
     * @param atStart whether this is the worker's first borrow, which asks for its preferred worker id if it has one
     */
    WorkerLease borrowAndWait(boolean atStart) {
        WorkerOptions options = worker.options;
        MillisClock clock = worker.clock;
        long ttl = options.leaseTtl().toMillis();
        WorkerLease lease = claim(atStart ? options.preferredWorkerId() : null, atStart);
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
            boolean closed = worker.closed;
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
                lease = worker.manager.renew(lease, Math.max(lease.highWaterMillis(), now + ttl));
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
     * One borrow; the worker's first one is tried again while the centre is unavailable, at most three attempts
     * within one lease ttl: a client's first call after start (connecting, loading classes on a busy host) may
     * outlast one operation timeout. Each attempt has an owner token of its own: an earlier attempt whose answer was
     * lost may still claim a slot later (a command delivered late), and a token shared with the lease in use would
     * let that late claim pass as this worker's (its renewals would succeed on a slot it no longer holds). A lost
     * attempt's claim is never issued under and runs out unrenewed within one ttl; when a preferred worker id is
     * refused as taken after a lost answer, that claim may be the taker, so its ttl (and max-skew) is waited out
     * once before the last try. A refused login is not tried again: it does not heal, and each try counts against
     * the account. Later borrows (switches) are not retried here: the lease keeper retries them.
     */
    private WorkerLease borrow(LeaseRequest request, boolean atStart) {
        long started = System.nanoTime();
        LeaseRequest attempt = request;
        boolean answerLost = false;
        boolean waited = false;
        for (int tries = 1; ; tries++) {
            try {
                return worker.manager.borrow(attempt);
            } catch (CenterLoginRefusedException e) {
                throw e;
            } catch (CenterUnavailableException e) {
                if (!atStart || tries >= 3 || System.nanoTime() - started > request.ttl().toNanos()) {
                    throw e;
                }
                log.warn("idworker namespace '{}': first borrow of a worker id, attempt {} of 3, failed; trying again "
                        + "under a new owner token: {}", request.namespace(), tries,
                        StoreLocations.redact(e.toString()));
                answerLost = true;
            } catch (WorkerIdTakenException e) {
                if (!answerLost || waited) {
                    throw e;
                }
                long waitMillis = request.ttl().toMillis() + request.maxSkew().toMillis() + 100;
                log.info("idworker namespace '{}': preferred worker id {} is taken, maybe by this worker's own earlier "
                        + "attempt whose answer was lost; waiting {} ms for that claim to run out", request.namespace(),
                        request.preferredSlot(), waitMillis);
                sleep(waitMillis);
                waited = true;
            }
            attempt = attempt.withAttempt(UUID.randomUUID().toString(), worker.clock.millis());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseLostException("interrupted while waiting for an earlier borrow's claim to run out", e);
        }
    }

    /** Step 1: one borrow, of the preferred worker id when there is one. */
    private WorkerLease claim(@Nullable WorkerIdPreference preferred, boolean atStart) {
        WorkerOptions options = worker.options;
        LeaseRequest request = new LeaseRequest(options.namespace(), worker.layout.workerCapacity(),
                UUID.randomUUID().toString(), options.leaseTtl(), worker.clock.millis(), options.maxSkew(), HOST, PID,
                worker.layout.pinned(), options.lossGuard());
        if (preferred == null) {
            return borrow(request, atStart);
        }
        WorkerLease lease;
        try {
            lease = borrow(request.withPreferredSlot(preferred.workerId()), atStart);
        } catch (WorkerIdTakenException taken) {
            if (preferred.whenTaken() == WhenTaken.FAIL) {
                log.error("idworker namespace '{}' does not start: its preferred worker id {} ({}) is held by another "
                        + "live worker{}; idworker.worker-id.when-taken=fail", options.namespace(),
                        preferred.workerId(), preferred.origin(), holderOf(taken));
                throw taken;
            }
            WorkerLease any = borrow(request.withAttempt(UUID.randomUUID().toString(), worker.clock.millis()), atStart);
            log.warn("idworker namespace '{}' took worker id {} instead of its preferred worker id {} ({}), which is "
                    + "held by another live worker{}; idworker.worker-id.when-taken=any", options.namespace(),
                    any.workerId(), preferred.workerId(), preferred.origin(), holderOf(taken));
            return any;
        }
        if (lease.workerId() != preferred.workerId()) {
            giveBackQuietly(lease, lease.floorMillis());
            throw new IdWorkerException("centre " + worker.manager.getClass().getName() + " broke the "
                    + "ISequenceManager contract: asked for preferred worker id " + preferred.workerId()
                    + " of namespace '" + options.namespace() + "' (LeaseRequest.preferredSlot), it handed out "
                    + lease.workerId() + "; it cannot honour " + preferred.property());
        }
        log.info("idworker namespace '{}' took its preferred worker id {} ({})", options.namespace(),
                lease.workerId(), preferred.origin());
        return lease;
    }

    private static String holderOf(WorkerIdTakenException taken) {
        String holder = taken.getHolder();
        return holder == null || holder.isBlank() ? "" : " (" + holder + ")";
    }

    /**
     * Why a floor lies {@code aheadMillis} ahead of this clock. A past holder's high-water is at most its clock
     * plus the ttl, so a floor further ahead than the ttl is a centre's guard for a record it does not have.
     */
    private String floorReason(long aheadMillis, long ttlMillis) {
        return aheadMillis > ttlMillis
                ? "the centre holds no record of this worker id's past (a namespace new to this centre, or its data "
                        + "was lost or evicted), so no ID is issued until any holder it may have forgotten has reached "
                        + "the end of its lease: idworker.lease.loss-guard = " + worker.options.lossGuard()
                : "an earlier holder of the worker id may have issued IDs up to it";
    }

    /** Returns {@code lease} with {@code lastIssuedMillis} as its high-water; a slot not returned expires. */
    void giveBackQuietly(WorkerLease lease, long lastIssuedMillis) {
        String namespace = worker.options.namespace();
        if (lastIssuedMillis < lease.floorMillis() || lastIssuedMillis > lease.highWaterMillis()) {
            // never store a high-water the lease cannot have reached: it could lock the slot for ever
            log.warn("idworker namespace '{}' leaves worker id {} to expire: its last timestamp {} lies outside the "
                    + "lease ({}, {}]", namespace, lease.workerId(), lastIssuedMillis, lease.floorMillis(),
                    lease.highWaterMillis());
            return;
        }
        try {
            worker.manager.giveBack(lease, lastIssuedMillis);
            log.info("idworker namespace '{}' returned worker id {} (high-water {}, the last issued timestamp; holder "
                    + "{} pid {})", namespace, lease.workerId(), Instant.ofEpochMilli(lastIssuedMillis), HOST, PID);
        } catch (RuntimeException e) {
            log.warn("idworker namespace '{}' could not return worker id {}; it expires with its lease: {}",
                    namespace, lease.workerId(), StoreLocations.redact(e.toString()));
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
