package io.github.idworker.segment.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LastFailure;
import io.github.idworker.segment.StoreBackedGenerator;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.StaleSegmentException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands out the numbers of one segment tag from a range kept in Redis, so that every node sees one sequence:
 * numbers are unique and strictly increase in the order calls reach Redis — when one call returns before another
 * begins, all of the first call's numbers are smaller (first come, first served). Ranges come from a
 * {@link SegmentAllocator} (the database), which stays the durable high-water.
 *
 * <p>Keys of tag {@code order} with prefix {@code idworker}, both under one hash tag so every script runs on Redis
 * Cluster:
 * <ul>
 *   <li>{@code {idworker:segment:order}:range} — hash {@code v_l} (last number issued), {@code v_h} (last number
 *       of the range), {@code run_id} (the identity of the Redis that installed it: its run id and replication id), {@code step}, {@code installed_ms};</li>
 *   <li>{@code {idworker:segment:order}:lock} — the refill lock, holding its owner's random token.</li>
 * </ul>
 *
 * <p>Steps of {@code nextIds(n)} ({@code nextId()} is {@code n = 1}):
 * <ol>
 *   <li>One {@code segment-next.lua} call: when the range holds {@code n} more numbers it advances {@code v_l} by
 *       {@code n} and returns {@code [first, last]} — one round trip. Otherwise it answers {@code MISSING} (no
 *       range, or one installed by another Redis process: a restart or failover may have rewound {@code v_l}) or
 *       {@code EXHAUSTED}. Those codes only drive the refill; they never reach a caller as a number.</li>
 *   <li>Refill: take the lock with {@code SET lock token NX PX lockTtl} ({@code lock-acquire.lua}, shared by every Redis store). Whoever fails
 *       to get it polls step 1 (1 ms, backing off to 10 ms) until another node's refill lands, at most
 *       {@code maxWait} in all, then gets {@link SegmentRefillTimeoutException}.</li>
 *   <li>Holding the lock, call step 1 again (check again: another node may just have refilled, and the call
 *       then simply serves this caller).</li>
 *   <li>Allocate {@code max(step, n)} numbers from the database.</li>
 *   <li>Install them with {@code segment-install.lua}, which accepts the range only while the caller's token
 *       still holds the lock and only when it lies above the current {@code v_h}. A lock that expired during a
 *       slow allocation makes the range a gap; a range below {@code v_h} means the database went back
 *       ({@link StaleSegmentException}). Either way the range is never used.</li>
 *   <li>Release the lock by compare-and-delete ({@code lock-release.lua}) and go back to step 1.</li>
 * </ol>
 *
 * <p>Why numbers keep increasing, also after Redis loses its data: a range is installed only by the holder of a
 * lock stored beside it, and allocated after that lock was taken. Lock and range vanish together, so every
 * install follows every earlier install and every data loss, and its range — allocated later from a
 * {@code max_id} that only grows — lies above every number issued before. After a loss numbering continues above
 * the database's {@code max_id}; the unused rest of the lost range is a gap, never reused. A restart that restores
 * an older snapshot, a fail-over to a lagging replica or a fail-back to a demoted master is caught by the
 * identity check in step 1 (see {@link RedisSegmentOptions.Builder#checkRunId}).
 * Numbers must stay below 2<sup>53</sup>
 * ({@link #MAX_NUMBER}), where Lua arithmetic is exact.
 *
 * <p>Failures to reach Redis or the database surface as {@link CenterUnavailableException}; an unknown tag as
 * {@link io.github.idworker.segment.UnknownSegmentTagException}. Thread-safe; the executor may be shared.
 */
public class RedisSegmentIdGenerator implements StoreBackedGenerator {

    /** Largest number the Redis generator issues: 2^53 − 1, the largest integer Lua represents exactly. */
    public static final long MAX_NUMBER = (1L << 53) - 1;

    private static final Logger log = LoggerFactory.getLogger(RedisSegmentIdGenerator.class);
    private static final LuaScript NEXT = LuaScript.load(RedisSegmentIdGenerator.class, "segment-next");
    private static final LuaScript LOCK = RefillLock.ACQUIRE;
    private static final LuaScript UNLOCK = RefillLock.RELEASE;
    private static final LuaScript INSTALL = LuaScript.load(RedisSegmentIdGenerator.class, "segment-install");
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final RedisScriptExecutor executor;
    private final SegmentAllocator allocator;
    private final String bizTag;
    private final RedisSegmentOptions options;
    private final String rangeKey;
    private final String lockKey;
    private final List<String> rangeKeys;
    private final List<String> lockKeys;
    private final List<String> installKeys;
    private final String lockTtlMillis;
    private final String checkRun;
    private final String tokenPrefix = UUID.randomUUID() + ":";
    private final AtomicLong tokens = new AtomicLong();

    private final LongAdder waitedCalls = new LongAdder();
    private final LongAdder installedRanges = new LongAdder();
    private final LongAdder discardedRanges = new LongAdder();
    // for meters and health: each costs a fraction of the Redis round trip every call makes anyway
    private final LongAdder issued = new LongAdder();
    private final LongAdder refills = new LongAdder();
    private final LongAdder refillNanos = new LongAdder();
    private final LastFailure lastFailure = new LastFailure();
    private volatile long lastIssued = -1;
    private volatile Segment lastRange;

    /**
     * @param executor runs the Lua scripts on Redis
     * @param allocator the durable source of ranges (the database)
     * @param bizTag the tag; no braces, at most 128 characters
     * @param options key prefix, step, batch limit, lock ttl and bounded wait
     */
    public RedisSegmentIdGenerator(RedisScriptExecutor executor, SegmentAllocator allocator, String bizTag,
                                   RedisSegmentOptions options) {
        if (executor == null || allocator == null) {
            throw new IllegalArgumentException("executor and allocator must not be null");
        }
        if (bizTag == null || bizTag.isBlank() || bizTag.length() > 128 || bizTag.indexOf('{') >= 0
                || bizTag.indexOf('}') >= 0) {
            throw new IdWorkerConfigurationException("idworker.segment.tags",
                    "a Redis segment tag must be 1 to 128 characters without '{' or '}', was '" + bizTag + "'");
        }
        this.executor = executor;
        this.allocator = allocator;
        this.bizTag = bizTag;
        this.options = options == null ? RedisSegmentOptions.defaults() : options;
        this.rangeKey = keyOf(this.options.keyPrefix(), bizTag, "range");
        this.lockKey = keyOf(this.options.keyPrefix(), bizTag, "lock");
        this.rangeKeys = List.of(rangeKey);
        this.lockKeys = List.of(lockKey);
        this.installKeys = List.of(rangeKey, lockKey);
        this.lockTtlMillis = Long.toString(this.options.lockTtl().toMillis());
        this.checkRun = this.options.checkRunId() ? "1" : "0";
    }

    /** A generator with default options. */
    public RedisSegmentIdGenerator(RedisScriptExecutor executor, SegmentAllocator allocator, String bizTag) {
        this(executor, allocator, bizTag, RedisSegmentOptions.defaults());
    }

    /**
     * The Redis key of one part of a tag's records, e.g. {@code keyOf("idworker", "order", "range")} is
     * {@code {idworker:segment:order}:range}. Parts: {@code range}, {@code lock}.
     */
    public static String keyOf(String keyPrefix, String bizTag, String part) {
        return "{" + keyPrefix + ":segment:" + bizTag + "}:" + part;
    }

    public String bizTag() {
        return bizTag;
    }

    /** The hash holding {@code v_l}/{@code v_h}. */
    public String rangeKey() {
        return rangeKey;
    }

    /** The refill lock. */
    public String lockKey() {
        return lockKey;
    }

    public RedisSegmentOptions options() {
        return options;
    }

    @Override
    public long nextId() {
        return take(1);
    }

    /** {@code count} consecutive numbers, issued by one Redis call when the range holds them. */
    @Override
    public long[] nextIds(int count) {
        if (count < 1 || count > options.maxBatch()) {
            throw new IllegalArgumentException("count must be between 1 and " + options.maxBatch()
                    + " (idworker.segment.redis.max-batch), was " + count);
        }
        long first = take(count);
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = first + i;
        }
        return ids;
    }

    /** Issues {@code count} numbers and returns the first; the others follow it. */
    private long take(int count) {
        long first;
        try {
            first = takeFromRedis(count);
        } catch (RuntimeException e) {
            lastFailure.failed(e);
            throw e;
        }
        issued.add(count);
        lastIssued = first + count - 1;
        lastFailure.succeeded();
        return first;
    }

    private long takeFromRedis(int count) {
        List<String> args = List.of(Integer.toString(count), checkRun);
        List<Object> reply = run(NEXT, rangeKeys, args);
        if ("OK".equals(text(reply, 0))) {
            return first(reply, count);
        }
        return refillAndTake(count, args, reply);
    }

    private long refillAndTake(int count, List<String> args, List<Object> reply) {
        waitedCalls.increment();
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            expectRefillStatus(reply);
            String token = tokenPrefix + tokens.incrementAndGet();
            if (number(run(LOCK, lockKeys, List.of(token, lockTtlMillis)), 0) == 1) {
                try {
                    reply = run(NEXT, rangeKeys, args);
                    if ("OK".equals(text(reply, 0))) {
                        return first(reply, count);
                    }
                    expectRefillStatus(reply);
                    refill(token, count);
                } finally {
                    unlock(token);
                }
            } else {
                if (System.nanoTime() - deadline > 0) {
                    throw new SegmentRefillTimeoutException(bizTag, options.maxWait(),
                            "idworker.segment.redis.max-wait", null);
                }
                LockSupport.parkNanos(pause);
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new IdWorkerException("Interrupted while waiting for a refill of segment tag '" + bizTag + "'");
                }
                pause = Math.min(2 * pause, MAX_PAUSE_NANOS);
            }
            reply = run(NEXT, rangeKeys, args);
            if ("OK".equals(text(reply, 0))) {
                return first(reply, count);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SegmentRefillTimeoutException(bizTag, options.maxWait(), "idworker.segment.redis.max-wait", null);
            }
        }
    }

    /** Allocates a range from the database and installs it; called while holding the lock. */
    private void refill(String token, int count) {
        long started = System.nanoTime();
        try {
            allocateAndInstall(token, count);
        } finally {
            refills.increment();
            refillNanos.add(System.nanoTime() - started);
        }
    }

    private void allocateAndInstall(String token, int count) {
        Segment segment = allocator.allocate(bizTag, Math.max(options.step(), count));
        if (segment.lastId() > MAX_NUMBER) {
            throw new SegmentExhaustedException(bizTag, segment.maxId(), "the Redis generator issues numbers up to "
                    + MAX_NUMBER + " (2^53 - 1, exact in Lua). Use a new tag or the in-process generator.");
        }
        List<Object> reply = run(INSTALL, installKeys, List.of(token, Long.toString(segment.firstId() - 1),
                Long.toString(segment.lastId()), Integer.toString(segment.step())));
        String status = text(reply, 0);
        switch (status) {
            case "OK" -> {
                installedRanges.increment();
                lastRange = segment;
                log.debug("Installed {} in {}", segment, rangeKey);
            }
            case "NOT_OWNER" -> {
                discardedRanges.increment();
                log.warn("Discarded {} of segment tag '{}' (a gap): this refill no longer held the lock {} when it "
                        + "came to install the range; the lock expired (idworker.segment.redis.lock-ttl {} is shorter "
                        + "than the database took) or Redis lost its data", segment, bizTag, lockKey, options.lockTtl());
            }
            case "BELOW" -> {
                discardedRanges.increment();
                throw new StaleSegmentException(bizTag, segment, number(reply, 1), "Redis key " + rangeKey);
            }
            default -> throw unexpected(INSTALL, reply);
        }
    }

    private void unlock(String token) {
        try {
            run(UNLOCK, lockKeys, List.of(token));
        } catch (RuntimeException e) {
            log.warn("Could not release the refill lock {} of segment tag '{}'; it expires after {}: {}", lockKey,
                    bizTag, options.lockTtl(), e.toString());
        }
    }

    private void expectRefillStatus(List<Object> reply) {
        String status = text(reply, 0);
        if (!"MISSING".equals(status) && !"EXHAUSTED".equals(status)) {
            throw unexpected(NEXT, reply);
        }
    }

    private long first(List<Object> reply, int count) {
        long first = number(reply, 1);
        long last = number(reply, 2);
        if (last - first + 1 != count) {
            throw unexpected(NEXT, reply);
        }
        return first;
    }

    /** How many calls found the range missing or exhausted and took part in, or waited for, a refill. */
    public long waitedCalls() {
        return waitedCalls.sum();
    }

    /** How many ranges this instance installed in Redis. */
    public long installedRanges() {
        return installedRanges.sum();
    }

    /** How many ranges this instance allocated but did not install (gaps). */
    public long discardedRanges() {
        return discardedRanges.sum();
    }

    /** Whether any call of this instance ever got numbers from Redis. */
    @Override
    public boolean everLoaded() {
        return issued.sum() > 0;
    }

    /** What this node remembers about the sequence; reads memory only. */
    public SequenceStatus status() {
        return new SequenceStatus(bizTag, rangeKey, lastIssued, lastRange, issued.sum(), refills.sum(),
                refillNanos.sum(), discardedRanges.sum(), waitedCalls.sum(), lastFailure.failing(),
                lastFailure.failure(), lastFailure.at());
    }

    private List<Object> run(LuaScript script, List<String> keys, List<String> args) {
        List<Object> reply;
        try {
            reply = executor.execute(script, keys, args);
        } catch (IdWorkerException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CenterUnavailableException("Redis failed running " + script.name() + " for segment tag '"
                    + bizTag + "' (keys " + keys + "): " + e, e);
        }
        if (reply == null || reply.isEmpty()) {
            throw new CenterUnavailableException("Redis gave an empty reply to " + script.name() + " for segment tag '"
                    + bizTag + "'", null);
        }
        return reply;
    }

    private CenterUnavailableException unexpected(LuaScript script, List<Object> reply) {
        return new CenterUnavailableException("Redis gave an unexpected reply to " + script.name()
                + " for segment tag '" + bizTag + "': " + describe(reply), null);
    }

    private String text(List<Object> reply, int index) {
        return ScriptReplies.text(reply, index, "segment tag '" + bizTag + "'");
    }

    private long number(List<Object> reply, int index) {
        return ScriptReplies.number(reply, index, "segment tag '" + bizTag + "'");
    }

    private static String describe(List<Object> reply) {
        return ScriptReplies.describe(reply);
    }

    @Override
    public String toString() {
        return "RedisSegmentIdGenerator[" + bizTag + ", " + rangeKey + "]";
    }
}
