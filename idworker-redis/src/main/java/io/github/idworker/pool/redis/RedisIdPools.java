package io.github.idworker.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolRequestTooLargeException;
import io.github.idworker.pool.PoolSnapshot;
import io.github.idworker.pool.PoolStatus;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.RateLimitedException;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.CrossSlot;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.ScriptReplies;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * {@link #takeBehind} runs the same take behind another step in one script call: the ID service's request gate
 * admits a signed call and takes its IDs in one round trip where both live on one Redis.
 *
 * <p>Every node checks every entity every {@code check-interval} (and at once after a refused take): when the
 * level is below {@code max-pool-size × threshold-percent / 100} it takes the refill lock, reserves whole chunks of
 * offsets in the database first and appends their IDs only above the high-water and within {@code max-pool-size};
 * a level still below the threshold afterwards raises a {@link PoolAlarm.Kind#LOW} alarm. A list older than the
 * database is dropped before any take on this node serves it.
 *
 * <p>Thread-safe. {@link #start()} begins the periodic table scan that finds entities inserted by operators;
 * {@link #close()} stops every refill.
 */
public class RedisIdPools implements IdPools, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisIdPools.class);

    /** {@code pool-take-steps.lua}: the take's steps, in front of pool-take.lua and {@link #takeBehind}'s scripts. */
    public static final LuaScript TAKE_STEPS = LuaScript.load(RedisIdPools.class, "pool-take-steps");
    private static final LuaScript TAKE = LuaScript.compose("pool-take", LuaScript.IDENTITY, TAKE_STEPS,
            LuaScript.load(RedisIdPools.class, "pool-take"));
    private final RedisScriptExecutor executor;
    private final PoolStore store;
    private final RedisPoolOptions options;
    private final PoolEnvironment environment;
    /** {@code e/E}, as the scripts compare and stamp it; built once, since every take sends it. */
    private final String environmentText;
    private final PoolAlarms alarms;
    private final PoolRefiller refiller;
    private final PoolTracker tracker;
    /** The tracker's map, read here directly: the take path looks a pool up without a call in between. */
    private final Map<String, TrackedPool> pools;
    private volatile boolean closed;
    /** Set once Redis refused {@link #takeBehind}'s keys of two hash tags (a sharding proxy): two calls from then. */
    private volatile boolean combinedRefused;

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
        this.alarms = new PoolAlarms(options);
        this.refiller = new PoolRefiller(executor, store, options);
        this.tracker = new PoolTracker(store, options, refiller, alarms, () -> closed);
        this.pools = tracker.pools;
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
        tracker.registered(stored);
        return stored;
    }

    /** Starts the periodic scan of the whole table, which picks up entities inserted or deleted by operators. */
    public void start() {
        tracker.start();
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
        TrackedPool pool = pools.get(entity);
        if (pool == null) {
            pool = BoundedCalls.call(() -> tracker.pool(entity), deadline, () -> timedOut(entity,
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
        List<Object> reply = call(pool, TAKE, pool.takeKeys, takeArgs(e, count), deadline);
        return answer(pool, e, reply, ScriptReplies.text(reply, 0, pool.context), count);
    }

    /** {@link #takeBehind}'s outcome: the IDs, or the reply of the step in front when it refused the call. */
    public record Behind(long @Nullable [] ids, @Nullable List<Object> refusal) {
    }

    /**
     * Takes {@code count} IDs of {@code entity} as {@link #take} does, in one script call behind a step that must
     * pass first — the request gate's admission of a signed call, which so costs one round trip. {@code script}
     * runs that step on {@code frontKeys} and {@code frontArgs} (first in its KEYS and ARGV), then
     * {@code pool-take-steps.lua} on this pool's keys and {@code pool-take.lua}'s arguments (after them); it answers
     * {@code {'GATE', refusal}} when the step refused (nothing taken), else {@code pool-take.lua}'s reply, which is
     * handled and thrown as {@link #take} does.
     *
     * @param front the executor whose server holds the keys the step in front uses
     * @return {@code null}, having taken and recorded nothing, when the take cannot run so: {@code front} and this pools'
     *         executor do not share one single server ({@link RedisScriptExecutor#sharesOneServerWith}: never on
     *         Redis Cluster, where the keys' hash tags differ), the entity is not tracked and checked on this node
     *         yet, or {@code count} is not within 1 and its {@code max-per-request}, or Redis refused keys of two hash
     *         tags ({@code CROSSSLOT}: a sharding proxy in front of one address; from then on for good, the refused
     *         call having recorded and taken nothing); the caller then runs its step
     *         alone and {@link #take} after it, which refuses as it always does
     */
    public @Nullable Behind takeBehind(RedisScriptExecutor front, LuaScript script, List<String> frontKeys,
                                       List<String> frontArgs, String entity, int count) {
        TrackedPool pool = pools.get(entity);
        if (pool == null || !pool.verified || closed || count < 1 || combinedRefused
                || !executor.sharesOneServerWith(front)) {
            return null;
        }
        PoolEntity e = pool.entity;
        if (count > e.maxPerRequest()) {
            return null;
        }
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        List<Object> reply;
        try {
            reply = call(pool, script, concat(frontKeys, pool.takeKeys), concat(frontArgs, takeArgs(e, count)),
                    deadline);
        } catch (RuntimeException failure) {
            if (!CrossSlot.refused(failure)) {
                throw failure;
            }
            // a sharding proxy in front of one address (twemproxy, Envoy, a clustered managed endpoint) refuses keys
            // of two hash tags before running anything: nothing was recorded or popped, so the caller's two calls
            // are safe, now and for good on this node
            combinedRefused = true;
            log.warn("Redis refused a signed pool take in one call (keys of two hash tags): the address is a "
                    + "sharding proxy, not one server; signed pool takes make two calls from now on");
            return null;
        }
        String status = ScriptReplies.text(reply, 0, pool.context);
        if (status.equals("GATE") && reply.size() == 2 && reply.get(1) instanceof List<?> refusal) {
            // refused in front of the take: an answer, and this pool was not even looked at
            @SuppressWarnings("unchecked")
            List<Object> r = (List<Object>) refusal;
            return new Behind(null, r);
        }
        return new Behind(answer(pool, e, reply, status, count), null);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        String[] all = new String[a.size() + b.size()];
        for (int i = 0; i < a.size(); i++) {
            all[i] = a.get(i);
        }
        for (int i = 0; i < b.size(); i++) {
            all[a.size() + i] = b.get(i);
        }
        return Arrays.asList(all);
    }

    /** pool-take.lua's arguments. */
    private List<String> takeArgs(PoolEntity e, int count) {
        return List.of(Integer.toString(count), Integer.toString(e.maxPerSecond()), environmentText);
    }

    /** Runs a take's script by {@code deadline}; a failure to get its reply counts as a failed take. */
    private List<Object> call(TrackedPool pool, LuaScript script, List<String> keys, List<String> args,
                              long deadline) {
        try {
            // a take Redis runs after the deadline pops IDs nobody gets: lost, never handed out again
            List<Object> reply = executor.execute(script, keys, args, deadline,
                    () -> timedOut(pool.key, "Redis did not answer", null));
            if (reply.isEmpty()) {
                throw new CenterUnavailableException("Empty Redis reply to a take from " + pool.context, null);
            }
            return reply;
        } catch (RuntimeException failure) {
            // a CROSSSLOT refusal is an answer of a working Redis (takeBehind falls back), not a failed take
            if (!CrossSlot.refused(failure)) {
                pool.takeFailure.failed(failure);
            }
            throw failure;
        }
    }

    /** pool-take.lua's reply: the IDs, or its refusal thrown. */
    private long[] answer(TrackedPool pool, PoolEntity e, List<Object> reply, String status, int count) {
        long repliedAt = System.nanoTime();
        String entity = pool.key;
        switch (status) {
            case "OK" -> {
                long[] ids = ids(reply, count, pool.context);
                pool.issued.add(count);
                pool.sawLevel(ScriptReplies.number(reply, 1, pool.context), repliedAt);
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
                pool.sawLevel(level, repliedAt);
                alarms.raise(pool, PoolAlarm.Kind.EMPTY, level, count, ScriptReplies.number(reply, 2, pool.context),
                        "a take of " + count + " was refused");
                tracker.kick(pool);
                throw new PoolEmptyException(entity, level, count, "");
            }
            case "RESET" -> {
                pool.takeFailure.succeeded();
                pool.emptyRefusals.increment();
                pool.sawLevel(0, repliedAt);
                alarms.raise(pool, PoolAlarm.Kind.EMPTY, 0, count, 0, "Redis lost the pool (restart, restored "
                        + "snapshot or fail-over); it refills above the database's offset");
                tracker.kick(pool);
                throw new PoolEmptyException(entity, 0, count, " (Redis had lost the pool: it was dropped and refills "
                        + "above the database's offset)");
            }
            // neither is an answer this node can serve from: both count as failed takes
            case "ENV" -> throw tookFailure(pool,
                    pool.environmentRefused(ScriptReplies.text(reply, 1, pool.context), environment));
            default -> throw tookFailure(pool, new CenterUnavailableException("Unexpected Redis reply "
                    + ScriptReplies.describe(reply) + " to a take from " + pool.context, null));
        }
    }

    private PoolTimeoutException timedOut(String entity, String what, @Nullable Throwable cause) {
        return new PoolTimeoutException(entity, options.maxWait(), RedisPoolOptions.MAX_WAIT_PROPERTY, what, cause);
    }

    private static RuntimeException tookFailure(TrackedPool pool, RuntimeException failure) {
        pool.takeFailure.failed(failure);
        return failure;
    }

    /**
     * The first take of an entity on this node waits for one check that compares the list with the database (a
     * list older than the database, e.g. of a key prefix switched back, is dropped first), until the take's
     * {@code deadline} at most: the check runs on the store-call threads ({@link BoundedCalls}) and goes on there
     * when the caller stops waiting for it.
     *
     * @throws PoolTimeoutException when no check succeeded in time
     */
    private void verify(TrackedPool pool, long deadline) {
        RuntimeException last = null;
        while (!pool.verified) {
            if (closed) {
                throw new IdWorkerException("RedisIdPools is closed");
            }
            // one thread checks; the others wait for its outcome instead of queueing checks of their own
            try {
                BoundedCalls.call(() -> {
                    tracker.verifyUnlessChecking(pool);
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

    /** The pool's level, state and rate as Redis holds them now. */
    public PoolStatus status(String entity) {
        TrackedPool pool = tracker.pool(entity);
        PoolRefiller.Inspect s = refiller.inspect(pool);
        PoolEntity e = pool.entity;
        return new PoolStatus(entity, s.level(), e.thresholdLevel(), e.maxPoolSize(), s.rate(), s.state());
    }

    /** Reads memory only: what this node saw of each pool it refills, by entity key. */
    @Override
    public List<PoolSnapshot> snapshots() {
        List<PoolSnapshot> out = new ArrayList<>();
        long now = System.nanoTime();
        for (TrackedPool p : new TreeMap<>(pools).values()) {
            out.add(p.snapshot(now, options.lockTtl()));
        }
        return out;
    }

    /** Reads memory only: what this node saw of one pool it refills. */
    @Override
    public Optional<PoolSnapshot> snapshot(String entity) {
        TrackedPool p = pools.get(entity);
        return p == null ? Optional.empty() : Optional.of(p.snapshot(System.nanoTime(), options.lockTtl()));
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
        TrackedPool pool = tracker.pool(entity);
        while (!pool.checking.compareAndSet(false, true)) {
            if (closed) {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return tracker.checkHeld(pool, false);
    }

    /** Refills that appended IDs on this node. */
    public long refills() {
        return refiller.refills.sum();
    }

    /** IDs this node appended to pools. */
    public long appendedIds() {
        return refiller.appendedIds.sum();
    }

    /** IDs this node reserved but could not append (lost lock, Redis lost the pool, pool full): gaps. */
    public long droppedIds() {
        return refiller.droppedIds.sum();
    }

    @Override
    public void close() {
        closed = true;
        tracker.close();
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
