package io.github.idworker.pool.redis;

import io.github.idworker.StoreLocations;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.UnknownPoolEntityException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Keeps the set of pools this node refills in step with the pool table, and runs their refill checks: every
 * {@code check-interval}, at once after a refused take, and never two of one pool at a time on this node (across
 * nodes the refill lock keeps them apart). Also remembers unknown entity keys for a second, so a caller repeating
 * one does not query the table each time. Steps of one check:
 * <ol>
 *   <li>Read the entity's row (settings changed by operators count from here; a row that is gone ends the
 *       tracking); read the pool's level and state.</li>
 *   <li>When the list is behind the database, drop it under the lock ({@link PoolRefiller#reconcile}); a pool
 *       that passed this step once is verified, and takes on this node may serve it.</li>
 *   <li>Above {@code max-pool-size}: cut the tail ({@link PoolRefiller#trim}). At or above
 *       {@code max-pool-size × threshold-percent / 100}: nothing to do.</li>
 *   <li>Otherwise refill ({@link PoolRefiller#refill}); when the level is still below the threshold afterwards,
 *       raise a {@link PoolAlarm.Kind#LOW} alarm.</li>
 * </ol>
 * Thread-safe; checks run on two daemon threads of its own, which {@link #close()} stops.
 */
final class PoolTracker {

    // the log category operators know from before the split
    private static final Logger log = LoggerFactory.getLogger(RedisIdPools.class);
    /** How long an unknown entity key is remembered, so a caller repeating it does not query the table each time. */
    private static final long UNKNOWN_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final PoolStore store;
    private final RedisPoolOptions options;
    private final PoolRefiller refiller;
    private final PoolAlarms alarms;
    /** Whether the pools were closed; read, never written, here. */
    private final BooleanSupplier closed;
    private final ScheduledThreadPoolExecutor scheduler;
    final Map<String, TrackedPool> pools = new ConcurrentHashMap<>();
    private final Map<String, Long> unknownUntil = new ConcurrentHashMap<>();
    private volatile @Nullable ScheduledFuture<?> scan;

    PoolTracker(PoolStore store, RedisPoolOptions options, PoolRefiller refiller, PoolAlarms alarms,
            BooleanSupplier closed) {
        this.store = store;
        this.options = options;
        this.refiller = refiller;
        this.alarms = alarms;
        this.closed = closed;
        AtomicInteger n = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "idworker-pool-refill-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    /** Starts the periodic scan of the whole table, which picks up entities inserted or deleted by operators. */
    void start() {
        if (scan == null && !closed.getAsBoolean()) {
            long every = options.scanInterval().toMillis();
            scan = scheduler.scheduleWithFixedDelay(this::scanQuietly, 0, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops every check and scan, waiting up to 5 s for the running ones. */
    void close() {
        scheduler.shutdownNow();
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("A pool refill did not stop within 5 s of close; its lock expires after {}", options.lockTtl());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The pool of {@code entity}, read from the table when this node does not track it yet. */
    TrackedPool pool(String entity) {
        TrackedPool pool = pools.get(entity);
        if (pool != null) {
            return pool;
        }
        Long until = unknownUntil.get(entity);
        if (until != null && System.nanoTime() - until < 0) {
            throw new UnknownPoolEntityException(entity, store.description());
        }
        PoolEntity.checkKey(entity, "entity");
        Optional<PoolEntity> found = store.find(entity);
        if (found.isEmpty()) {
            if (unknownUntil.size() > 1024) {
                unknownUntil.clear();
            }
            unknownUntil.put(entity, System.nanoTime() + UNKNOWN_TTL_NANOS);
            throw new UnknownPoolEntityException(entity, store.description());
        }
        return track(found.get());
    }

    /** Tracks {@code entity}, just registered or found in the table, forgetting that its key was unknown. */
    void registered(PoolEntity entity) {
        unknownUntil.remove(entity.key());
        track(entity);
    }

    /** Knows {@code entity} from now on (or updates its settings), scheduling its first check at once. */
    private TrackedPool track(PoolEntity entity) {
        boolean[] added = {false};
        TrackedPool pool = pools.compute(entity.key(), (k, old) -> {
            if (old != null && !old.removed) {
                old.entity = entity;
                return old;
            }
            added[0] = true;
            return new TrackedPool(entity, options.keyPrefix());
        });
        if (added[0]) {
            schedule(pool, 0);
        }
        return pool;
    }

    private void schedule(TrackedPool pool, long delayMillis) {
        if (closed.getAsBoolean() || pool.removed) {
            return;
        }
        try {
            pool.next = scheduler.schedule(() -> periodicCheck(pool), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * Runs a check unless another thread of this node is checking the pool (checks of one pool never overlap
     * here; across nodes the refill lock keeps them apart). With {@code followUp} (a refused take asked) the
     * request is not dropped when a check runs: that check may have read the level before the take, so one more
     * check is queued on the scheduler once it ends. A thread never loops here: each request costs one check.
     */
    void checkUnlessChecking(TrackedPool pool, boolean followUp) {
        if (pool.checking.compareAndSet(false, true)) {
            checkHeld(pool, false);
            return;
        }
        if (followUp) {
            pool.checkWanted.set(true);
            // whoever frees 'checking' reads 'checkWanted' afterwards: either that thread saw the request, or
            // 'checking' is free by now and the request is queued here
            if (!pool.checking.get()) {
                kick(pool);
            }
        }
    }

    /**
     * The check a node's first take of a pool waits for, unless another thread of this node is checking: it ends
     * once the pool is verified and leaves a trim or refill to the scheduler. The take waits for the comparison
     * with the table only, not for a refill: appending a million IDs can take longer than its {@code max-wait}.
     */
    void verifyUnlessChecking(TrackedPool pool) {
        if (pool.checking.compareAndSet(false, true)) {
            checkHeld(pool, true);
        }
    }

    /**
     * One check with {@code checking} held by the caller; frees it and queues a check asked for meanwhile. With
     * {@code verifyOnly} it ends after the verification and queues the rest as a check of its own.
     */
    boolean checkHeld(TrackedPool pool, boolean verifyOnly) {
        pool.checkWanted.set(false); // this check answers every request made before it began
        try {
            return check(pool, verifyOnly);
        } finally {
            pool.checking.set(false);
            if (pool.checkWanted.get()) {
                kick(pool);
            }
        }
    }

    private void periodicCheck(TrackedPool pool) {
        try {
            // a check running already does what this one would
            checkUnlessChecking(pool, false);
        } catch (RuntimeException e) {
            warnUnlessClosed("Refill check of ID pool '" + pool.key + "' failed", e);
        } finally {
            schedule(pool, pool.entity.checkInterval().toMillis());
        }
    }

    /** A check at once on the scheduler, at most one queued per pool. */
    void kick(TrackedPool pool) {
        if (closed.getAsBoolean() || !pool.kickQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.execute(() -> {
                pool.kickQueued.set(false);
                try {
                    checkUnlessChecking(pool, true);
                } catch (RuntimeException e) {
                    warnUnlessClosed("Refill of ID pool '" + pool.key + "' after a refused take failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            pool.kickQueued.set(false);
        }
    }

    private void scanQuietly() {
        try {
            List<PoolEntity> all = store.findAll();
            Set<String> keys = new HashSet<>();
            for (PoolEntity e : all) {
                keys.add(e.key());
                registered(e);
            }
            for (TrackedPool pool : pools.values()) {
                if (!keys.contains(pool.key)) {
                    forget(pool, "its row is gone from " + store.description());
                }
            }
        } catch (RuntimeException e) {
            warnUnlessClosed("Scan of the ID pool table " + store.description() + " failed", e);
        }
    }

    /**
     * A background failure is worth a warning, except one caused by {@link #close()}: it interrupts the check or
     * scan in flight, whose Redis or database call then fails, which is expected and logged at DEBUG only.
     */
    private void warnUnlessClosed(String what, RuntimeException e) {
        if (closed.getAsBoolean()) {
            log.debug("{} while closing: {}", what, StoreLocations.redact(e.toString()));
        } else {
            log.warn("{}: {}", what, StoreLocations.redact(e.toString()));
        }
    }

    private void forget(TrackedPool pool, String why) {
        pool.removed = true;
        ScheduledFuture<?> next = pool.next;
        if (next != null) {
            next.cancel(false);
        }
        pools.remove(pool.key, pool);
        log.info("ID pool '{}' is no longer refilled by this node: {}", pool.key, why);
    }

    /** One refill check, its outcome kept for snapshots; true when the pool is at or above its threshold afterwards. */
    private boolean check(TrackedPool pool, boolean verifyOnly) {
        pool.refillFailure = null;
        try {
            boolean ok = checkOnce(pool, verifyOnly);
            pool.checked(ok, pool.refillFailure);
            return ok;
        } catch (RuntimeException e) {
            pool.checked(false, e.toString());
            throw e;
        }
    }

    private boolean checkOnce(TrackedPool pool, boolean verifyOnly) {
        Optional<PoolEntity> row = store.find(pool.key);
        if (row.isEmpty()) {
            forget(pool, "its row is gone from " + store.description());
            return false;
        }
        PoolEntity e = row.get();
        pool.entity = e;
        PoolRefiller.Inspect s = refiller.inspect(pool);
        if (refiller.behind(s, e.currentOffset())) {
            if (!refiller.reconcile(pool)) {
                return false;
            }
            s = refiller.inspect(pool);
        }
        pool.verified = true;
        boolean inRange = s.state().equals("OK") && s.level() >= e.thresholdLevel() && s.level() <= e.maxPoolSize();
        if (verifyOnly && !inRange) {
            pool.checkWanted.set(true); // the trim or refill runs on the scheduler once this check frees the pool
            return true;
        }
        if (s.state().equals("OK") && s.level() > e.maxPoolSize()) {
            refiller.trim(pool, e);
            return true;
        }
        if (s.state().equals("OK") && s.level() >= e.thresholdLevel()) {
            return true;
        }
        String failure = null;
        try {
            if (!refiller.refill(pool, e)) {
                return false; // another node holds the lock and refills
            }
        } catch (RuntimeException ex) {
            failure = "the refill failed: " + ex.getMessage();
            pool.refillFailure = failure;
            log.debug("Refill of ID pool '{}' failed", pool.key, ex);
        }
        if (closed.getAsBoolean()) {
            return false; // close() interrupted the refill: not an alarm
        }
        PoolRefiller.Inspect after = refiller.inspect(pool);
        if (after.level() < pool.entity.thresholdLevel()) {
            alarms.raise(pool, PoolAlarm.Kind.LOW, after.level(), 0, after.rate(),
                    failure != null ? failure : "a refill could not bring it above the threshold");
            return false;
        }
        return true;
    }
}
