package io.github.idworker.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LastFailure;
import io.github.idworker.StoreLocations;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolRequestTooLargeException;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolSnapshot;
import io.github.idworker.pool.PoolStatus;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.RateLimitedException;
import io.github.idworker.pool.UnknownPoolEntityException;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.ScriptReplies;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * ID pools in Redis, one list per entity shared by every node, refilled ahead of demand from offsets reserved in
 * a {@link PoolStore}. Guarantees: no ID is handed out twice for an entity — also after Redis lost its data, came
 * back from an older snapshot or failed over to a lagging replica, and whatever refiller stalls (gaps, never
 * reuse); a take is all or nothing; {@link IncreasingType#MONOTONIC} IDs strictly increase in take order across
 * all nodes, and every ID taken after Redis lost the pool is above every ID taken before;
 * {@link IncreasingType#TREND} IDs increase chunk by chunk; the list never holds more than {@code max-pool-size};
 * environment {@code e} of {@code E} hands out only IDs with {@code id mod E = e}.
 *
 * <p>Keys of entity {@code users}, prefix {@code idworker}, all under one hash tag so every script runs on Redis
 * Cluster: {@code {idworker:pool:users}:ids} (the list), {@code …:meta} (hash {@code run_id}, the identity of the
 * Redis holding the pool, its replication id; {@code hw}, the largest ID ever appended; {@code env}, the environment
 * split of the IDs in the list), {@code …:rate} (IDs
 * taken in the current and the previous second of the Redis clock) and {@code …:lock} (the refill lock).
 *
 * <p>Steps of {@code take(entity, n)}:
 * <ol>
 *   <li>{@code n} above the entity's {@code max-per-request} → {@link PoolRequestTooLargeException}; no Redis call.</li>
 *   <li>One {@code pool-take.lua} call: when the pool was stamped by another Redis (or not at all) it is dropped
 *       and the take refused ({@code RESET}); when the list holds IDs of another environment split it is refused
 *       ({@code ENV}, an {@link io.github.idworker.IdWorkerConfigurationException}); when {@code n} more IDs would pass {@code max-per-second} in the
 *       current second of the Redis clock, counted across all nodes, it is refused with the milliseconds to the
 *       next second ({@link RateLimitedException}); when fewer than {@code n} IDs are left it is refused
 *       ({@link PoolEmptyException}, an {@link PoolAlarm.Kind#EMPTY} alarm, and an immediate refill check on this
 *       node); otherwise {@code LPOP n} and the rate count, atomically.</li>
 * </ol>
 * {@code max-wait} ({@link RedisPoolOptions.Builder#maxWait}) bounds a take in all, counted from its start and
 * whatever the Redis client's socket timeout and retries: the entity lookup, the first take's check and the
 * {@code pool-take.lua} call are awaited only until then ({@link BoundedCalls}; the take through the executor's
 * {@link RedisScriptExecutor#execute(LuaScript, List, List, long, java.util.function.Supplier)}), and then the caller gets
 * {@link PoolTimeoutException}. IDs of an abandoned take that Redis still runs later are lost: popped from the
 * list, never handed out, never appended again.
 *
 * <p>Steps of a refill check, run by every node for every entity every {@code check-interval} (and at once after
 * a refused take):
 * <ol>
 *   <li>Read the entity's row (settings changed by operators count from here); read the pool's level and state.
 *       Nothing to do when the level is at or above {@code max-pool-size × threshold-percent / 100}.</li>
 *   <li>Take the refill lock ({@code SET NX PX lock-ttl} with a random token); another node holding it refills.</li>
 *   <li>Reserve {@code k × step} offsets in the database first ({@link PoolStore#reserve}, which refuses a node
 *       of another environment split), {@code k} the whole chunks that fit below {@code max-pool-size} (at most
 *       {@code max-refill} IDs).</li>
 *   <li>When Redis lost the pool's high-water: seed it with the ID of the offset right below the reservation, made
 *       after the lock was taken — every ID appended before the loss came from offsets at or below it.</li>
 *   <li>Turn offsets into IDs through the environment: in order for {@code MONOTONIC}, skipping up to
 *       {@code max-gap} offsets at random after each ID when set; each chunk shuffled for {@code TREND}.</li>
 *   <li>Append them with {@code pool-append.lua} in slices of whole chunks, each accepted only while this token holds
 *       the lock, only in the Redis that stamped the pool, only above the high-water and only within
 *       {@code max-pool-size}; a refused slice ends the refill, and its offsets stay unused (a gap).</li>
 *   <li>Release the lock by compare-and-delete; when the level is still below the threshold, raise a
 *       {@link PoolAlarm.Kind#LOW} alarm.</li>
 * </ol>
 * Thread-safe. {@link #start()} begins the periodic table scan that finds entities inserted by operators;
 * {@link #close()} stops every refill.
 */
public class RedisIdPools implements IdPools, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisIdPools.class);
    private static final LuaScript TAKE = LuaScript.load(RedisIdPools.class, "pool-take");
    private static final LuaScript INSPECT = LuaScript.load(RedisIdPools.class, "pool-inspect");
    private static final LuaScript APPEND = LuaScript.load(RedisIdPools.class, "pool-append");
    /** IDs of one append call: big enough to amortise the round trip, small enough not to stall Redis. */
    static final int APPEND_SLICE = 10_000;
    /** How long an unknown entity key is remembered, so a caller repeating it does not query the table each time. */
    private static final long UNKNOWN_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MIN_LOG_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisScriptExecutor executor;
    private final PoolStore store;
    private final RedisPoolOptions options;
    private final PoolEnvironment environment;
    /** {@code e/E}, as the scripts compare and stamp it; built once, since every take sends it. */
    private final String environmentText;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Map<String, Pool> pools = new ConcurrentHashMap<>();
    private final Map<String, Long> unknownUntil = new ConcurrentHashMap<>();
    private final SecureRandom seeds = new SecureRandom();
    private final LongAdder refills = new LongAdder();
    private final LongAdder appendedIds = new LongAdder();
    private final LongAdder droppedIds = new LongAdder();
    private volatile ScheduledFuture<?> scan;
    private volatile boolean closed;

    /** One entity as this node knows it. */
    private final class Pool {
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
        volatile ScheduledFuture<?> next;
        volatile boolean removed;
        /** Set by the first check that found the list not behind the database; takes wait for it. */
        volatile boolean verified;
        final AtomicLong lastLowLog = new AtomicLong(neverLogged());
        final AtomicLong lastEmptyLog = new AtomicLong(neverLogged());
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
        final java.util.concurrent.atomic.AtomicReference<Seen> seen = new java.util.concurrent.atomic.AtomicReference<>();
        volatile CheckOutcome lastCheck;
        /** Takes that failed for want of Redis (not refusals, which are answers). */
        final LastFailure takeFailure = new LastFailure();
        /** Why the refill of the check in progress failed; read by the check when it ends. */
        volatile String refillFailure;

        Pool(PoolEntity entity) {
            this.key = entity.key();
            this.entity = entity;
            String tag = "{" + options.keyPrefix() + ":pool:" + key + "}:";
            String ids = tag + "ids";
            String meta = tag + "meta";
            String lock = tag + "lock";
            this.takeKeys = List.of(ids, meta, tag + "rate");
            this.appendKeys = List.of(ids, meta, lock);
            this.lockKeys = List.of(lock);
            this.context = "ID pool '" + key + "'";
        }
    }

    /**
     * @param executor runs the Lua scripts on Redis
     * @param store the entity table and its durable offsets
     * @param options key prefix, environment, lock ttl, scan interval, alarm listeners
     */
    public RedisIdPools(RedisScriptExecutor executor, PoolStore store, RedisPoolOptions options) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.store = Objects.requireNonNull(store, "store");
        this.options = Objects.requireNonNull(options, "options");
        this.environment = options.environment();
        this.environmentText = environment.toString();
        AtomicInteger n = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "idworker-pool-refill-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    /**
     * Registers {@code entity} in the store unless its key is there (the stored row wins), and starts refilling
     * it on this node at once.
     *
     * @return the entity as the store holds it
     * @throws io.github.idworker.IdWorkerConfigurationException when the row is pinned to another environment
     */
    public PoolEntity register(PoolEntity entity) {
        PoolEntity stored = store.register(entity, environment);
        unknownUntil.remove(stored.key());
        track(stored);
        return stored;
    }

    /** Starts the periodic scan of the whole table, which picks up entities inserted or deleted by operators. */
    public void start() {
        if (scan == null && !closed) {
            long every = options.scanInterval().toMillis();
            scan = scheduler.scheduleWithFixedDelay(this::scanQuietly, 0, every, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public long[] take(String entity, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count + " (ID pool '" + entity + "')");
        }
        if (closed) {
            throw new IdWorkerException("RedisIdPools is closed");
        }
        // one deadline for the whole take, whatever the Redis client's socket timeout and retries
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        Pool pool = pools.get(entity);
        if (pool == null) {
            pool = BoundedCalls.call(() -> pool(entity), deadline, () -> timedOut(entity,
                    "the pool table did not answer", null));
        }
        if (!pool.verified) {
            try {
                verify(pool, deadline);
            } catch (RuntimeException failure) {
                // a take that cannot even check the pool failed for want of the stores: health must hear it
                pool.takeFailure.failed(failure);
                throw failure;
            }
        }
        PoolEntity e = pool.entity;
        if (count > e.maxPerRequest()) {
            throw new PoolRequestTooLargeException(entity, count, e.maxPerRequest());
        }
        List<Object> reply;
        long repliedAt;
        String status;
        try {
            // a take Redis runs after the deadline pops IDs nobody gets: lost, never handed out again
            reply = executor.execute(TAKE, pool.takeKeys,
                    List.of(Integer.toString(count), Integer.toString(e.maxPerSecond()), environmentText), deadline,
                    () -> timedOut(entity, "Redis did not answer", null));
            repliedAt = System.nanoTime();
            status = ScriptReplies.text(reply, 0, pool.context);
        } catch (RuntimeException failure) {
            pool.takeFailure.failed(failure);
            throw failure;
        }
        switch (status) {
            case "OK" -> {
                long[] ids = ids(reply, count, pool.context);
                pool.issued.add(count);
                seen(pool, ScriptReplies.number(reply, 1, pool.context), repliedAt);
                pool.takeFailure.succeeded();
                return ids;
            }
            case "RATE" -> {
                // a refusal is an answer: Redis works and the pool serves
                pool.takeFailure.succeeded();
                pool.rateLimited.increment();
                throw new RateLimitedException(entity, count, e.maxPerSecond(),
                        Duration.ofMillis(Math.max(1, ScriptReplies.number(reply, 1, pool.context))));
            }
            case "EMPTY" -> {
                pool.takeFailure.succeeded();
                long level = ScriptReplies.number(reply, 1, pool.context);
                pool.emptyRefusals.increment();
                seen(pool, level, repliedAt);
                alarm(pool, PoolAlarm.Kind.EMPTY, level, count, ScriptReplies.number(reply, 2, pool.context),
                        "a take of " + count + " was refused");
                kick(pool);
                throw new PoolEmptyException(entity, level, count, "");
            }
            case "RESET" -> {
                pool.takeFailure.succeeded();
                pool.emptyRefusals.increment();
                seen(pool, 0, repliedAt);
                alarm(pool, PoolAlarm.Kind.EMPTY, 0, count, 0, "Redis lost the pool (restart, restored snapshot or "
                        + "fail-over); it refills above the database's offset");
                kick(pool);
                throw new PoolEmptyException(entity, 0, count, " (Redis had lost the pool: it was dropped and refills "
                        + "above the database's offset)");
            }
            // neither is an answer this node can serve from: both count as failed takes
            case "ENV" -> throw tookFailure(pool, environmentRefused(pool, ScriptReplies.text(reply, 1, pool.context)));
            default -> throw tookFailure(pool, new CenterUnavailableException("Unexpected Redis reply "
                    + ScriptReplies.describe(reply) + " to a take from " + pool.context, null));
        }
    }

    private PoolTimeoutException timedOut(String entity, String what, Throwable cause) {
        return new PoolTimeoutException(entity, options.maxWait(), RedisPoolOptions.MAX_WAIT_PROPERTY, what, cause);
    }

    private static RuntimeException tookFailure(Pool pool, RuntimeException failure) {
        pool.takeFailure.failed(failure);
        return failure;
    }

    private IdWorkerConfigurationException environmentRefused(Pool pool, String stamped) {
        return new IdWorkerConfigurationException(PoolEnvironment.ENVIRONMENT_PROPERTY, "the " + pool.context
                + " in Redis holds IDs of environment " + stamped + ", this node is configured as environment "
                + environment + "; it takes nothing from it. Configure " + PoolEnvironment.ENVIRONMENT_PROPERTY
                + " and " + PoolEnvironment.ENVIRONMENTS_PROPERTY + " as the pool table's row is pinned, or give this "
                + "deployment its own Redis or key prefix.");
    }

    /** The pool's level, state and rate as Redis holds them now. */
    public PoolStatus status(String entity) {
        Pool pool = pool(entity);
        Inspect s = inspect(pool);
        PoolEntity e = pool.entity;
        return new PoolStatus(entity, s.level, e.thresholdLevel(), e.maxPoolSize(), s.rate, s.state);
    }

    /** Reads memory only: what this node saw of each pool it refills, by entity key. */
    @Override
    public List<PoolSnapshot> snapshots() {
        List<PoolSnapshot> out = new ArrayList<>();
        long now = System.nanoTime();
        for (Pool p : new TreeMap<>(pools).values()) {
            out.add(snapshotOf(p, now));
        }
        return out;
    }

    /** Reads memory only: what this node saw of one pool it refills. */
    @Override
    public Optional<PoolSnapshot> snapshot(String entity) {
        Pool p = pools.get(entity);
        return p == null ? Optional.empty() : Optional.of(snapshotOf(p, System.nanoTime()));
    }

    private PoolSnapshot snapshotOf(Pool p, long nowNanos) {
        PoolEntity e = p.entity;
        CheckOutcome c = p.lastCheck;
        Seen seen = p.seen.get();
        long checkAgeNanos = nowNanos - (c != null ? c.atNanos() : p.trackedAtNanos);
        return new PoolSnapshot(p.key, seen == null ? -1 : seen.level(),
                seen == null ? null : Instant.ofEpochMilli(seen.atMillis()), e.thresholdLevel(), e.maxPoolSize(),
                e.checkInterval(), e.checkInterval().multipliedBy(3).plus(options.lockTtl()),
                Instant.ofEpochMilli(p.trackedAtMillis), c == null ? null : Instant.ofEpochMilli(c.atMillis()),
                Duration.ofNanos(checkAgeNanos), c != null && c.ok(), c == null ? null : c.failure(),
                p.takeFailure.failing(), p.takeFailure.failure(), p.issued.sum(), p.refills.sum(),
                p.refillNanos.sum(), p.emptyRefusals.sum(), p.rateLimited.sum());
    }

    /** The outcome of one refill check. */
    private record CheckOutcome(long atMillis, long atNanos, boolean ok, String failure) {
    }

    private static String redacted(String failure) {
        return failure == null ? null : StoreLocations.redact(failure);
    }

    private static void seen(Pool pool, long level) {
        seen(pool, level, System.nanoTime());
    }

    /**
     * Keeps the level with the newest {@code atNanos} (when its reply arrived): two takes whose replies arrive
     * in one order may record them in the other, and the older must not overwrite the newer.
     */
    private static void seen(Pool pool, long level, long atNanos) {
        Seen fresh = new Seen(level, System.currentTimeMillis(), atNanos);
        pool.seen.accumulateAndGet(fresh, (cur, x) -> cur != null && cur.atNanos() - x.atNanos() > 0 ? cur : x);
    }

    /** One level this node saw, when (wall clock, for operators) and when on this JVM's monotonic clock. */
    private record Seen(long level, long atMillis, long atNanos) {
    }

    /** The entities this node refills, as last read. */
    public List<PoolEntity> entities() {
        List<PoolEntity> out = new ArrayList<>();
        pools.values().forEach(p -> out.add(p.entity));
        return out;
    }

    /**
     * Runs one refill check of {@code entity} on the calling thread (what the scheduler does every
     * {@code check-interval}); for operators and tests.
     *
     * @return true when the pool is at or above its threshold afterwards
     */
    public boolean checkNow(String entity) {
        Pool pool = pool(entity);
        while (!pool.checking.compareAndSet(false, true)) {
            if (closed) {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return checkHeld(pool);
    }

    /**
     * The first take of an entity on this node waits for one check that compares the list with the database (a
     * list older than the database, e.g. of a key prefix switched back, is dropped first), until the take's
     * {@code deadline} at most: the check runs on the store-call threads ({@link BoundedCalls}) and goes on there
     * when the caller stops waiting for it.
     *
     * @throws PoolTimeoutException when no check succeeded in time
     */
    private void verify(Pool pool, long deadline) {
        RuntimeException last = null;
        while (!pool.verified) {
            if (closed) {
                throw new IdWorkerException("RedisIdPools is closed");
            }
            // one thread checks; the others wait for its outcome instead of queueing checks of their own
            try {
                BoundedCalls.call(() -> {
                    checkUnlessChecking(pool, false);
                    return null;
                }, deadline, () -> timedOut(pool.key, "its check against the pool table did not end", null));
            } catch (IdWorkerConfigurationException | PoolTimeoutException e) {
                throw e;
            } catch (RuntimeException e) {
                last = e;
            }
            if (pool.verified) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw timedOut(pool.key, "it could not be checked against the pool table, so this node hands out "
                        + "none of its IDs yet" + (last == null ? "" : " (" + last.getClass().getSimpleName() + ")"),
                        last);
            }
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(pool.checking.get() ? 1 : 20)));
        }
    }

    /** Refills that appended IDs on this node. */
    public long refills() {
        return refills.sum();
    }

    /** IDs this node appended to pools. */
    public long appendedIds() {
        return appendedIds.sum();
    }

    /** IDs this node reserved but could not append (lost lock, Redis lost the pool, pool full): gaps. */
    public long droppedIds() {
        return droppedIds.sum();
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("A pool refill did not stop within 5 s of close; its lock expires after {}", options.lockTtl());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Pool pool(String entity) {
        Pool pool = pools.get(entity);
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

    /** Knows {@code entity} from now on (or updates its settings), scheduling its first check at once. */
    private Pool track(PoolEntity entity) {
        boolean[] added = {false};
        Pool pool = pools.compute(entity.key(), (k, old) -> {
            if (old != null && !old.removed) {
                old.entity = entity;
                return old;
            }
            added[0] = true;
            return new Pool(entity);
        });
        if (added[0]) {
            schedule(pool, 0);
        }
        return pool;
    }

    private void schedule(Pool pool, long delayMillis) {
        if (closed || pool.removed) {
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
    private void checkUnlessChecking(Pool pool, boolean followUp) {
        if (pool.checking.compareAndSet(false, true)) {
            checkHeld(pool);
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

    /** One check with {@code checking} held by the caller; frees it and queues a check asked for meanwhile. */
    private boolean checkHeld(Pool pool) {
        pool.checkWanted.set(false); // this check answers every request made before it began
        try {
            return check(pool);
        } finally {
            pool.checking.set(false);
            if (pool.checkWanted.get()) {
                kick(pool);
            }
        }
    }

    private void periodicCheck(Pool pool) {
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
    private void kick(Pool pool) {
        if (closed || !pool.kickQueued.compareAndSet(false, true)) {
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
                unknownUntil.remove(e.key());
                track(e);
            }
            for (Pool pool : pools.values()) {
                if (!keys.contains(pool.key)) {
                    forget(pool, "its row is gone from " + store.description());
                }
            }
        } catch (RuntimeException e) {
            warnUnlessClosed("Scan of the ID pool table " + store.description() + " failed", e);
        }
    }

    /**
     * The time of the last alarm line of a pool that has logged none: so far back that its first alarm logs
     * whatever the gap between lines (up to the longest check interval, an hour; 100 s back, as before, kept the
     * first alarm of a pool checked less often than that out of the log), and near enough that the difference to
     * now does not overflow.
     */
    private static long neverLogged() {
        return System.nanoTime() - Long.MAX_VALUE / 2;
    }

    /**
     * A background failure is worth a warning, except one caused by {@link #close()}: it interrupts the check or
     * scan in flight, whose Redis or database call then fails, which is expected and logged at DEBUG only.
     */
    private void warnUnlessClosed(String what, RuntimeException e) {
        if (closed) {
            log.debug("{} while closing: {}", what, e.toString());
        } else {
            log.warn("{}: {}", what, e.toString());
        }
    }

    private void forget(Pool pool, String why) {
        pool.removed = true;
        ScheduledFuture<?> next = pool.next;
        if (next != null) {
            next.cancel(false);
        }
        pools.remove(pool.key, pool);
        log.info("ID pool '{}' is no longer refilled by this node: {}", pool.key, why);
    }

    /** One refill check, its outcome kept for {@link #snapshots()}; true when the pool is at or above its threshold afterwards. */
    private boolean check(Pool pool) {
        pool.refillFailure = null;
        try {
            boolean ok = checkOnce(pool);
            pool.lastCheck = new CheckOutcome(System.currentTimeMillis(), System.nanoTime(), ok, redacted(pool.refillFailure));
            return ok;
        } catch (RuntimeException e) {
            pool.lastCheck = new CheckOutcome(System.currentTimeMillis(), System.nanoTime(), false, redacted(e.toString()));
            throw e;
        }
    }

    private boolean checkOnce(Pool pool) {
        Optional<PoolEntity> row = store.find(pool.key);
        if (row.isEmpty()) {
            forget(pool, "its row is gone from " + store.description());
            return false;
        }
        PoolEntity e = row.get();
        pool.entity = e;
        Inspect s = inspect(pool);
        if (behind(s, e.currentOffset())) {
            if (!reconcile(pool)) {
                return false;
            }
            s = inspect(pool);
        }
        pool.verified = true;
        if (s.state.equals("OK") && s.level > e.maxPoolSize()) {
            trim(pool, e);
            return true;
        }
        if (s.state.equals("OK") && s.level >= e.thresholdLevel()) {
            return true;
        }
        String failure = null;
        try {
            if (!refill(pool, e)) {
                return false; // another node holds the lock and refills
            }
        } catch (RuntimeException ex) {
            failure = "the refill failed: " + ex.getMessage();
            pool.refillFailure = failure;
            log.debug("Refill of ID pool '{}' failed", pool.key, ex);
        }
        if (closed) {
            return false; // close() interrupted the refill: not an alarm
        }
        Inspect after = inspect(pool);
        if (after.level < pool.entity.thresholdLevel()) {
            alarm(pool, PoolAlarm.Kind.LOW, after.level, 0, after.rate,
                    failure != null ? failure : "a refill could not bring it above the threshold");
            return false;
        }
        return true;
    }

    /**
     * Cuts the list's tail down to a {@code max-pool-size} an operator lowered, in whole chunks, under the refill
     * lock: the tail holds the highest IDs, so the cut is a gap; nothing happens when another node holds the lock.
     */
    private void trim(Pool pool, PoolEntity e) {
        underLock(pool, false, token -> {
            int chunk = e.type() == IncreasingType.TREND ? e.step() : 1;
            List<Object> reply = executor.execute(APPEND, pool.appendKeys, List.of(token, "TRIM",
                    Long.toString(e.maxPoolSize()), Integer.toString(chunk), "0", environmentText));
            log.info("ID pool '{}' held more than its max-pool-size {}: its tail was cut ({}), a gap", pool.key,
                    e.maxPoolSize(), ScriptReplies.describe(reply));
            return true;
        });
    }

    /**
     * Runs {@code work} holding the pool's refill lock ({@link RefillLock}), releasing it afterwards.
     *
     * @return what {@code work} returned, or {@code whenHeld} when another node holds the lock
     */
    private boolean underLock(Pool pool, boolean whenHeld, Function<String, Boolean> work) {
        String token = RefillLock.tryAcquire(executor, pool.lockKeys, options.lockTtl(), pool.context);
        if (token == null) {
            return whenHeld;
        }
        try {
            return work.apply(token);
        } finally {
            RefillLock.release(executor, pool.lockKeys, token, pool.context);
        }
    }

    /** The refill under the lock; false when another node holds the lock. */
    private boolean refill(Pool pool, PoolEntity settings) {
        long started = System.nanoTime();
        return underLock(pool, false, token -> {
            Inspect s = inspect(pool);
            boolean seeded = s.state.equals("OK");
            if (seeded && s.level >= settings.thresholdLevel()) {
                return true; // another node refilled between the check and the lock
            }
            // an unseeded pool is dropped (RESET) or empty (SEED) by the time its high-water is seeded
            long level = seeded ? s.level : 0;
            long room = settings.maxPoolSize() - level;
            long wanted = Math.min(room, options.maxRefill());
            int chunks = (int) Math.max(1, wanted / settings.step());
            // the store refuses a node of another environment split here, before it writes anything to Redis
            PoolReservation r = store.reserve(pool.key, chunks, environment);
            if (!seeded && !seed(pool, token, r)) {
                droppedIds.add(r.size());
                return true;
            }
            append(pool, token, r);
            pool.refills.increment();
            pool.refillNanos.add(System.nanoTime() - started);
            return true;
        });
    }

    /**
     * Seeds the high-water from the offset right below reservation {@code r}, made after the lock was taken:
     * every ID appended before Redis lost the pool came from a reservation committed before that append, so from
     * an offset at or below it. The reservation was checked against the row's environment, so a node of another
     * split never seeds.
     *
     * @return false when the lock was lost meanwhile
     */
    private boolean seed(Pool pool, String token, PoolReservation r) {
        String hw = idText(r.firstOffset() - 1);
        for (int attempt = 0; attempt < 2; attempt++) {
            List<Object> reply = executor.execute(APPEND, pool.appendKeys,
                    List.of(token, "SEED", "0", hw, hw, environmentText));
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("OK")) {
                log.info("ID pool '{}' in Redis had no high-water (new, or Redis lost it): seeded at {}, right below "
                        + "the offsets {}..{} just reserved", pool.key, hw, r.firstOffset(), r.lastOffset());
                return true;
            }
            if (!status.equals("RESET")) {
                log.info("ID pool '{}': could not seed the high-water ({}); its {} reserved IDs are left unused (a "
                        + "gap) and the next check tries again", pool.key, ScriptReplies.describe(reply), r.size());
                return false;
            }
        }
        return false;
    }

    /** Appends the reserved offsets' IDs in slices of whole chunks; a refused slice drops the rest (a gap). */
    private void append(Pool pool, String token, PoolReservation r) {
        PoolEntity e = r.entity();
        long[] ids = idsOf(r);
        int chunk = e.type() == IncreasingType.TREND ? e.step() : 1;
        int slice = Math.max(chunk, APPEND_SLICE / chunk * chunk);
        String maxSize = Long.toString(e.maxPoolSize());
        for (int from = 0; from < ids.length; from += slice) {
            int to = Math.min(ids.length, from + slice);
            long lowest = Long.MAX_VALUE;
            long highest = Long.MIN_VALUE;
            List<String> args = new ArrayList<>(to - from + 6);
            args.add(token);
            args.add("APPEND");
            args.add(maxSize);
            args.add(null);
            args.add(null);
            args.add(environmentText);
            for (int i = from; i < to; i++) {
                lowest = Math.min(lowest, ids[i]);
                highest = Math.max(highest, ids[i]);
                args.add(Long.toString(ids[i]));
            }
            if (to == ids.length) {
                // the high-water covers the whole reservation, also offsets a gap skipped at its end, so it equals
                // the database's offset after every completed refill
                highest = Math.max(highest, environment.id(r.lastOffset()));
            }
            args.set(3, Long.toString(lowest));
            args.set(4, Long.toString(highest));
            List<Object> reply = executor.execute(APPEND, pool.appendKeys, args);
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("ENV")) {
                droppedIds.add(ids.length - from);
                throw environmentRefused(pool, ScriptReplies.text(reply, 1, pool.context));
            }
            if (!status.equals("OK")) {
                int dropped = ids.length - from;
                droppedIds.add(dropped);
                log.warn("ID pool '{}': Redis refused an append ({}); {} reserved IDs from {} on are left unused (a "
                        + "gap){}", pool.key, ScriptReplies.describe(reply), dropped, lowest,
                        status.equals("STALE") ? ". The database's current_offset is below IDs already in Redis: "
                                + "was the table restored from a backup? Refills continue above it" : "");
                return;
            }
            appendedIds.add(to - from);
        }
        refills.increment();
        log.debug("ID pool '{}': appended {} IDs from offsets {}..{}", pool.key, ids.length, r.firstOffset(),
                r.lastOffset());
    }

    /** The IDs of a reservation in hand-out order: chunk by chunk, gaps or shuffles as the entity says. */
    long[] idsOf(PoolReservation r) {
        PoolEntity e = r.entity();
        long size = r.size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("reservation of " + size + " offsets is too large");
        }
        SplittableRandom random = new SplittableRandom(seeds.nextLong());
        if (e.type() == IncreasingType.MONOTONIC && e.maxGap() > 0) {
            long[] out = new long[(int) size];
            int n = 0;
            long step = e.step();
            // every step is taken by comparing distances, never by adding past the end: the reservation may end
            // at Long.MAX_VALUE (a single environment's last offset), where off + gap would overflow
            for (long chunkFirst = r.firstOffset(); ; chunkFirst += step) {
                boolean lastChunk = r.lastOffset() - chunkFirst < step;
                long chunkLast = lastChunk ? r.lastOffset() : chunkFirst + step - 1;
                // the first offset of every chunk is used, so the gaps never reach across chunks
                long off = chunkFirst;
                while (true) {
                    out[n++] = environment.id(off);
                    long skip = 1 + random.nextInt(e.maxGap() + 1);
                    if (chunkLast - off < skip) {
                        break;
                    }
                    off += skip;
                }
                if (lastChunk) {
                    break;
                }
            }
            return Arrays.copyOf(out, n);
        }
        long[] out = new long[(int) size];
        for (int i = 0; i < out.length; i++) {
            out[i] = environment.id(r.firstOffset() + i);
        }
        if (e.type() == IncreasingType.TREND) {
            int step = e.step();
            for (int from = 0; from < out.length; from += step) {
                int to = Math.min(out.length, from + step);
                for (int i = to - 1; i > from; i--) {
                    int j = from + random.nextInt(i - from + 1);
                    long t = out[i];
                    out[i] = out[j];
                    out[j] = t;
                }
            }
        }
        return out;
    }

    /** @param hw the largest ID appended, as Redis holds it; empty when unknown */
    private record Inspect(long level, String state, long rate, String hw) {
    }

    private Inspect inspect(Pool pool) {
        List<Object> reply = executor.execute(INSPECT, pool.takeKeys, List.of());
        Inspect s = new Inspect(ScriptReplies.number(reply, 0, pool.context), ScriptReplies.text(reply, 1, pool.context),
                ScriptReplies.number(reply, 2, pool.context), ScriptReplies.text(reply, 3, pool.context));
        // a pool Redis lost (SEED) or must drop (RESET) serves nothing until refilled
        seen(pool, s.state.equals("OK") ? s.level : 0);
        return s;
    }

    /**
     * Whether Redis's high-water is below the ID of the database's {@code current_offset}: after every completed
     * refill the two are equal, so a lower high-water means a refill is in flight, or the list is older than the
     * database (a snapshot loaded into the running Redis, a key prefix switched back, a refill that died between
     * reserving and appending).
     */
    private boolean behind(Inspect s, long currentOffset) {
        if (!s.state.equals("OK") || s.hw.isEmpty() || currentOffset < 0) {
            return false; // an unseeded pool is empty or dropped before anything is appended
        }
        return s.hw.equals("-1") || Long.parseLong(s.hw) < Long.parseLong(idText(currentOffset));
    }

    /** The ID of {@code offset} as the scripts compare it; {@code -1} (below every ID) before any offset. */
    private String idText(long offset) {
        return offset < 0 ? "-1" : Long.toString(environment.id(Math.min(offset, environment.maxOffset())));
    }

    /**
     * Under the refill lock, checks again whether the list is behind the database and if so drops it, so no ID
     * older than the database's offset is handed out after this check.
     *
     * @return false when another node holds the lock (the pool stays unverified until a later check)
     */
    private boolean reconcile(Pool pool) {
        return underLock(pool, false, token -> {
            // the row after the lock: no refill of this pool is in flight now, stalled ones cannot append
            PoolEntity row = store.find(pool.key).orElseThrow(
                    () -> new UnknownPoolEntityException(pool.key, store.description()));
            Inspect s = inspect(pool);
            if (!behind(s, row.currentOffset())) {
                return true;
            }
            String hw = idText(row.currentOffset());
            List<Object> reply = executor.execute(APPEND, pool.appendKeys,
                    List.of(token, "DROP", "0", hw, hw, environmentText));
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("ENV")) {
                throw environmentRefused(pool, ScriptReplies.text(reply, 1, pool.context));
            }
            if (!status.equals("OK")) {
                return false;
            }
            droppedIds.add(s.level);
            log.warn("ID pool '{}': Redis held IDs up to {} while the database has reserved up to offset {} (ID {}): "
                    + "the list is older than the database (a snapshot loaded into the running Redis, a key prefix "
                    + "switched back, or a refill that died between reserving and appending). Its {} IDs were "
                    + "dropped, a gap; refills continue above the database's offset", pool.key, s.hw,
                    row.currentOffset(), hw, s.level);
            return true;
        });
    }

    private void alarm(Pool pool, PoolAlarm.Kind kind, long level, int requested, long rate, String reason) {
        PoolEntity e = pool.entity;
        PoolAlarm alarm = new PoolAlarm(kind, pool.key, level, e.thresholdLevel(), requested, rate, Instant.now(), reason);
        AtomicLong last = kind == PoolAlarm.Kind.EMPTY ? pool.lastEmptyLog : pool.lastLowLog;
        long now = System.nanoTime();
        long prev = last.get();
        long gap = Math.max(MIN_LOG_GAP_NANOS, e.checkInterval().toNanos());
        if (now - prev >= gap && last.compareAndSet(prev, now)) {
            int more = pool.unloggedAlarms.getAndSet(0);
            log.warn("{}{}", alarm, more > 0 ? " (" + more + " more alarms of this pool since the last line)" : "");
        } else {
            pool.unloggedAlarms.incrementAndGet();
        }
        for (PoolAlarmListener listener : options.alarmListeners()) {
            try {
                listener.onAlarm(alarm);
            } catch (RuntimeException ex) {
                log.warn("Pool alarm listener {} failed on {}: {}", listener, alarm, ex.toString());
            }
        }
    }

    private static long[] ids(List<Object> reply, int count, String context) {
        Object o = reply.size() > 2 ? reply.get(2) : null;
        if (!(o instanceof List<?> list) || list.size() != count) {
            throw new CenterUnavailableException("Redis reply " + ScriptReplies.describe(reply) + " to a take from "
                    + context + " does not hold " + count + " IDs", null);
        }
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            Object id = list.get(i);
            out[i] = id instanceof byte[] b ? parse(b) : id instanceof Number n ? n.longValue()
                    : Long.parseLong(String.valueOf(id));
        }
        return out;
    }

    private static long parse(byte[] digits) {
        if (digits.length == 0 || digits.length > 19) {
            return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
        }
        long v = 0;
        for (byte b : digits) {
            int d = b - '0';
            if (d < 0 || d > 9) {
                return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
            }
            v = v * 10 + d;
        }
        return v < 0 ? Long.parseLong(new String(digits, StandardCharsets.US_ASCII)) : v;
    }

    @Override
    public String toString() {
        return "RedisIdPools[" + options.keyPrefix() + ", environment " + environment + ", " + pools.size()
                + " entities]";
    }
}
