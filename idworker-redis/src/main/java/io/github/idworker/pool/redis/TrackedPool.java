package io.github.idworker.pool.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.LastFailure;
import io.github.idworker.StoreLocations;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolSnapshot;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One entity as this node knows it: its Redis keys (all under one hash tag), its latest settings, the state that
 * keeps its checks from overlapping on this node, and what this node saw of it for {@link PoolSnapshot}s.
 * Thread-safe: every field is final, volatile or atomic, and the take path reads and counts without locks.
 */
final class TrackedPool {

    final String key;
    final List<String> takeKeys;
    final List<String> appendKeys;
    final List<String> lockKeys;
    final String context;
    volatile PoolEntity entity;
    final AtomicBoolean checking = new AtomicBoolean();
    /** A check was asked for since the running one (if any) began; the thread that checks runs one more. */
    final AtomicBoolean checkWanted = new AtomicBoolean();
    final AtomicBoolean kickQueued = new AtomicBoolean();
    volatile @Nullable ScheduledFuture<?> next;
    volatile boolean removed;
    /** Set by the first check that found the list not behind the database; takes wait for it. */
    volatile boolean verified;
    final AtomicLong lastLowLog = new AtomicLong(PoolAlarms.neverLogged());
    final AtomicLong lastEmptyLog = new AtomicLong(PoolAlarms.neverLogged());
    final AtomicInteger unloggedAlarms = new AtomicInteger();
    // for snapshots(): written once per take or check, next to a Redis round trip
    final long trackedAtMillis = System.currentTimeMillis();
    /** Ages are measured on the monotonic clock, so a wall-clock step never makes a pool stale or fresh. */
    final long trackedAtNanos = System.nanoTime();
    final LongAdder issued = new LongAdder();
    final LongAdder emptyRefusals = new LongAdder();
    final LongAdder rateLimited = new LongAdder();
    final LongAdder refills = new LongAdder();
    final LongAdder refillNanos = new LongAdder();
    /** The newest level seen, or {@code null} before any. */
    private final AtomicReference<@Nullable Seen> seen = new AtomicReference<>();
    private volatile @Nullable CheckOutcome lastCheck;
    /** Takes that failed for want of Redis (not refusals, which are answers). */
    final LastFailure takeFailure = new LastFailure();
    /** Why the refill of the check in progress failed; read by the check when it ends. */
    volatile @Nullable String refillFailure;

    TrackedPool(PoolEntity entity, String keyPrefix) {
        this.key = entity.key();
        this.entity = entity;
        String tag = "{" + keyPrefix + ":pool:" + key + "}:";
        String ids = tag + "ids";
        String meta = tag + "meta";
        String lock = tag + "lock";
        this.takeKeys = List.of(ids, meta, tag + "rate");
        this.appendKeys = List.of(ids, meta, lock);
        this.lockKeys = List.of(lock);
        this.context = "ID pool '" + key + "'";
    }

    /** One level this node saw, when (wall clock, for operators) and when on this JVM's monotonic clock. */
    private record Seen(long level, long atMillis, long atNanos) {
    }

    /** The outcome of one refill check. */
    private record CheckOutcome(long atMillis, long atNanos, boolean ok, @Nullable String failure) {
    }

    void sawLevel(long level) {
        sawLevel(level, System.nanoTime());
    }

    /**
     * Keeps the level with the newest {@code atNanos} (when its reply arrived): two takes whose replies arrive
     * in one order may record them in the other, and the older must not overwrite the newer.
     */
    void sawLevel(long level, long atNanos) {
        Seen fresh = new Seen(level, System.currentTimeMillis(), atNanos);
        seen.accumulateAndGet(fresh, (cur, x) -> cur != null && cur.atNanos() - x.atNanos() > 0 ? cur : x);
    }

    /** Notes the end of a refill check; {@code failure} is redacted, since snapshots reach operators. */
    void checked(boolean ok, @Nullable String failure) {
        lastCheck = new CheckOutcome(System.currentTimeMillis(), System.nanoTime(), ok,
                failure == null ? null : StoreLocations.redact(failure));
    }

    /** What this node saw of the pool, as of {@code nowNanos}; stale after three check intervals and a lock ttl. */
    PoolSnapshot snapshot(long nowNanos, Duration lockTtl) {
        PoolEntity e = entity;
        CheckOutcome c = lastCheck;
        Seen s = seen.get();
        long checkAgeNanos = nowNanos - (c != null ? c.atNanos() : trackedAtNanos);
        return new PoolSnapshot(key, s == null ? -1 : s.level(),
                s == null ? null : Instant.ofEpochMilli(s.atMillis()), e.thresholdLevel(), e.maxPoolSize(),
                e.checkInterval(), e.checkInterval().multipliedBy(3).plus(lockTtl),
                Instant.ofEpochMilli(trackedAtMillis), c == null ? null : Instant.ofEpochMilli(c.atMillis()),
                Duration.ofNanos(checkAgeNanos), c != null && c.ok(), c == null ? null : c.failure(),
                takeFailure.failing(), takeFailure.failure(), issued.sum(), refills.sum(),
                refillNanos.sum(), emptyRefusals.sum(), rateLimited.sum());
    }

    /** The refusal of a node whose environment split differs from the one {@code stamped} on the list in Redis. */
    IdWorkerConfigurationException environmentRefused(String stamped, PoolEnvironment environment) {
        return new IdWorkerConfigurationException(PoolEnvironment.ENVIRONMENT_PROPERTY, "the " + context
                + " in Redis holds IDs of environment " + stamped + ", this node is configured as environment "
                + environment + "; it takes nothing from it. Configure " + PoolEnvironment.ENVIRONMENT_PROPERTY
                + " and " + PoolEnvironment.ENVIRONMENTS_PROPERTY + " as the pool table's row is pinned, or give this "
                + "deployment its own Redis or key prefix.");
    }
}
