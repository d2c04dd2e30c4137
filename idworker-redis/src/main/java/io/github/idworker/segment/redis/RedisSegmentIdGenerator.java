package io.github.idworker.segment.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LastFailure;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.StaleSegmentException;
import io.github.idworker.segment.StoreBackedGenerator;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

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
 *       of the current range), {@code n_l}/{@code n_h} (the range installed ahead: its first number minus one and
 *       its last; absent when none), {@code run_id} (the identity of the Redis that installed the ranges: its
 *       replication id), {@code step}, {@code installed_ms};</li>
 *   <li>{@code {idworker:segment:order}:lock} — the refill lock, holding its owner's random token.</li>
 * </ul>
 *
 * <p>Steps of {@code nextIds(n)} ({@code nextId()} is {@code n = 1}):
 * <ol>
 *   <li>Coalescing (on by default, {@link RedisSegmentOptions.Builder#coalesce}): while {@code maxInFlight}
 *       (default 2) Redis calls of this instance are in flight, further calls queue; the next call that starts asks
 *       for the sum of the queued counts (up to {@code maxBatch}) and hands the numbers out in queue order, the
 *       first arrival getting the smallest. A caller is only served by a Redis call that starts after it began, so
 *       a call that begins after another returned is served by a later Redis call (see {@link CallCombiner}). A
 *       queued call not taken within {@code maxWait} gets
 *       {@link SegmentRefillTimeoutException}; when a combined call fails, all its callers get its exception.</li>
 *   <li>One {@code segment-next.lua} call: it checks the hash's identity (see below), and when the current range
 *       holds {@code n} more numbers it advances {@code v_l} by {@code n}; when it does not but the range ahead
 *       does, it switches to that range (the rest of the current one is a gap) and issues from it. It returns the
 *       last number issued — one round trip, three commands in Redis ({@code HMGET}, {@code INFO replication},
 *       {@code HINCRBY}) — negated when the current range has been used past
 *       {@code prefetchThreshold} and no range is installed ahead. Otherwise it answers {@code MISSING} (no range,
 *       or one stamped by another Redis identity: a restart or failover may have rewound {@code v_l}) or
 *       {@code EXHAUSTED}. Those codes only drive the refill; they never reach a caller as a number.</li>
 *   <li>Refill ahead, after a negated reply: this instance starts one background refill (at most one in flight,
 *       on a small daemon executor shared by all generators) that takes the lock without waiting (another node's
 *       refill is as good), asks {@code segment-ahead-check.lua} whether a range is still wanted ahead, allocates
 *       {@code step} numbers from the database and installs them with {@code segment-install.lua} as the range
 *       ahead. Callers keep being served from the current range meanwhile and never wait for it.</li>
 *   <li>Synchronous refill, after {@code MISSING} or {@code EXHAUSTED} (a new tag, data loss, a batch larger than
 *       what is installed, or demand that outran the refill ahead): take the lock with
 *       {@code SET lock token NX PX lockTtl} ({@code lock-acquire.lua}, shared by every Redis store). Whoever fails
 *       to get it polls step 2 (1 ms, backing off to 10 ms) until another refill lands, at most {@code maxWait} in
 *       all, then gets {@link SegmentRefillTimeoutException}.</li>
 *   <li>Holding the lock, call step 2 again (check again: another node may just have refilled, and the call then
 *       simply serves this caller).</li>
 *   <li>Allocate {@code max(step, n)} numbers from the database — on the shared refill threads, which also do
 *       steps 7 and 8, while the caller waits at most until its {@code maxWait} runs out: a hung database (whose
 *       statement or pool timeouts may be far longer) then costs the caller {@link SegmentRefillTimeoutException},
 *       not a longer wait. A range with a number below 1 is refused (the script's replies use 0 and the sign): the
 *       tag's {@code max_id} must be 0 or more.</li>
 *   <li>Install them with {@code segment-install.lua} as the current range (dropping any range ahead: a gap). It
 *       accepts a range only while the caller's token still holds the lock and only when it lies above both
 *       {@code v_h} and {@code n_h}. A range ahead is accepted only beside a current range stamped with this
 *       Redis's identity; beside a missing or stale one it goes in as the current range, stamped anew. A lock that
 *       expired during a slow allocation makes the range a gap; a range below means the database went back
 *       ({@link StaleSegmentException}). Either way the range is never used.</li>
 *   <li>Release the lock by compare-and-delete ({@code lock-release.lua}); the synchronous refill goes back to
 *       step 2.</li>
 * </ol>
 *
 * <p>Why numbers keep increasing, also after Redis loses its data: a range is installed only by the holder of a
 * lock stored beside it, and allocated after that lock was taken. Lock and ranges vanish together, and a lock a
 * restart from a snapshot brings back is nobody's (it holds its token with the identity of the Redis that granted
 * it, and the scripts accept only this Redis's), so every install follows every earlier install and every data
 * loss, and its range — allocated later from a
 * {@code max_id} that only grows — lies above every number issued before; the script checks it lies above both
 * ranges in the hash anyway. Switching to the range ahead only moves upwards, and only inside the one script
 * that issues. After a loss numbering continues above the database's {@code max_id}; the unused rest of the lost
 * ranges is a gap, never reused. A restart that restores an older snapshot, a fail-over to a lagging replica or
 * a fail-back to a demoted master is caught by the identity check in step 2 (see
 * {@link RedisSegmentOptions.Builder#checkRunId}): both ranges of a hash carry one identity, so a stale hash is
 * never used, neither its current range nor its range ahead. The check runs in every Redis call that issues
 * numbers; coalescing makes it run once per combined call instead of once per caller, which weakens nothing,
 * because all numbers of a combined call come from the one hash that this check accepted, in the same atomic
 * script.
 * Numbers must stay below 2<sup>53</sup> ({@link #MAX_NUMBER}), where Lua arithmetic is exact.
 *
 * <p>{@code maxWait} bounds each call in all, counted from its start (from the moment it queued when coalescing),
 * whatever the Redis client's socket timeout, retries and script reloads add up to: every Redis step a caller
 * waits for (steps 2, 4, 5 and 8) is awaited only until the call's deadline (the executor's deadline-aware
 * {@link RedisScriptExecutor#execute(LuaScript, List, List, long, java.util.function.Supplier)}; the lock through
 * {@link BoundedCalls}, which releases a lock granted too late), and then the
 * caller gets {@link SegmentRefillTimeoutException}. A {@code segment-next} that Redis runs after its caller gave
 * up leaves its numbers unused — a gap, never a duplicate; a lock granted after that is released when the answer
 * comes.
 *
 * <p>Interrupts: a queued call not yet taken ends with {@link IdWorkerException} and the flag kept; a call that is
 * waiting for a refill goes on (it may serve callers combined with it who were not interrupted; {@code maxWait}
 * bounds it) and keeps the flag.
 *
 * <p>Failures to reach Redis or the database surface as {@link CenterUnavailableException}; an unknown tag as
 * {@link io.github.idworker.segment.UnknownSegmentTagException}. A failing refill ahead is only logged: the
 * synchronous refill reports the failure to the caller that needs it. Thread-safe; the executor may be shared.
 *
 * <p>This class holds steps 1 and 2 (the issuing path); {@code RedisSegmentRefill} holds steps 3 to 8 and
 * {@code RedisSegmentScripts} the scripts, their keys and the lock calls.
 */
public class RedisSegmentIdGenerator implements StoreBackedGenerator {

    /** Largest number the Redis generator issues: 2^53 − 1, the largest integer Lua represents exactly. */
    public static final long MAX_NUMBER = (1L << 53) - 1;

    static final String MAX_WAIT_PROPERTY = "idworker.segment.redis.max-wait";

    private final String bizTag;
    private final RedisSegmentOptions options;
    private final String rangeKey;
    private final String lockKey;
    private final String checkRun;
    /** Numbers left in the current range below which a range is wanted ahead; "0" wants none. */
    private final String lowMark;
    /** The arguments of {@code nextId()}, built once: the most frequent call allocates no list for them. */
    private final List<String> argsOfOne;
    private final long maxWaitNanos;
    private final RedisSegmentScripts scripts;
    private final RedisSegmentRefill refill;
    /** {@code null} when coalescing is off. */
    private final @Nullable CallCombiner combiner;

    // for meters and health: each costs a fraction of the Redis round trip every call makes anyway, and is paid
    // once per Redis call, not once per caller
    private final LongAdder issued = new LongAdder();
    private final LastFailure lastFailure = new LastFailure();
    private volatile long lastIssued = -1;

    /**
     * @param executor runs the Lua scripts on Redis
     * @param allocator the durable source of ranges (the database)
     * @param bizTag the tag; no braces, at most 128 characters
     * @param options key prefix, step, batch limit, lock ttl, bounded wait, identity check, coalescing and the
     *        threshold of the range ahead
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
        this.bizTag = bizTag;
        this.options = options == null ? RedisSegmentOptions.defaults() : options;
        this.rangeKey = keyOf(this.options.keyPrefix(), bizTag, "range");
        this.lockKey = keyOf(this.options.keyPrefix(), bizTag, "lock");
        this.checkRun = this.options.checkRunId() ? "1" : "0";
        this.lowMark = Long.toString((long) Math.ceil(this.options.step() * (1 - this.options.prefetchThreshold())));
        this.argsOfOne = List.of("1", checkRun, lowMark);
        Duration maxWait = this.options.maxWait();
        this.maxWaitNanos = maxWait.toNanos();
        this.scripts = new RedisSegmentScripts(executor, bizTag, rangeKey, lockKey, this.options.lockTtl(), maxWait);
        this.refill = new RedisSegmentRefill(scripts, allocator, bizTag, this.options, lowMark);
        this.combiner = !this.options.coalesce() ? null : new CallCombiner(this::issue, this.options.maxBatch(),
                this.options.maxInFlight(), maxWait.toNanos(),
                () -> new SegmentRefillTimeoutException(bizTag, maxWait, MAX_WAIT_PROPERTY, null),
                () -> new IdWorkerException("Interrupted while waiting for a number of segment tag '" + bizTag + "'"));
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

    /** The hash holding {@code v_l}/{@code v_h} and the range ahead. */
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

    /**
     * {@code count} consecutive numbers, issued by one Redis call (shared with concurrent calls when coalescing)
     * when the installed ranges hold them.
     */
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
        return combiner != null ? combiner.take(count) : issue(count, System.nanoTime() + maxWaitNanos);
    }

    /**
     * One Redis call (plus a refill when needed) for {@code count} numbers, on behalf of one or more callers; a
     * refill is waited for until {@code deadline} ({@link System#nanoTime()}), the earliest of the callers' own.
     */
    private long issue(int count, long deadline) {
        long first;
        try {
            first = takeFromRedis(count, deadline);
        } catch (RuntimeException e) {
            lastFailure.failed(e);
            throw e;
        }
        issued.add(count);
        lastIssued = first + count - 1;
        lastFailure.succeeded();
        return first;
    }

    private long takeFromRedis(int count, long deadline) {
        List<String> args = count == 1 ? argsOfOne : List.of(Integer.toString(count), checkRun, lowMark);
        List<Object> reply = scripts.next(args, deadline);
        long last = RedisSegmentScripts.issuedLast(reply);
        if (last == 0) {
            reply = refill.refillUntilIssued(count, args, reply, deadline);
            last = RedisSegmentScripts.issuedLast(reply);
        }
        return firstOf(last, count, reply);
    }

    /** The first of {@code count} numbers whose last is {@code signedLast}; a negative one asks for a range ahead. */
    private long firstOf(long signedLast, int count, List<Object> reply) {
        long last = signedLast;
        if (signedLast < 0) {
            last = -signedLast;
            refill.refillAheadSoon();
        }
        long first = last - count + 1;
        if (first < 1) {
            throw scripts.unexpected(RedisSegmentScripts.NEXT, reply);
        }
        return first;
    }

    /** How many {@code segment-next} calls this instance made (each serves one or, coalesced, several callers). */
    public long scriptCalls() {
        return scripts.nextCalls();
    }

    /** How many calls were served by a Redis call shared with at least one other call (0 with coalescing off). */
    public long coalescedCalls() {
        return combiner == null ? 0 : combiner.coalescedCalls();
    }

    /** How many calls are queued behind the Redis call in flight and not yet taken into one (a snapshot). */
    public int queuedCalls() {
        return combiner == null ? 0 : combiner.queuedCalls();
    }

    /**
     * How many Redis calls found the range missing or exhausted and took part in, or waited for, a refill; with
     * coalescing, one such call may serve several callers.
     */
    public long waitedCalls() {
        return refill.waitedCalls();
    }

    /** How many ranges this instance installed in Redis, ahead or as the current one. */
    public long installedRanges() {
        return refill.installedRanges();
    }

    /** How many of those ranges this instance installed ahead of the current one. */
    public long installedAhead() {
        return refill.installedAhead();
    }

    /** How many ranges this instance allocated but did not install (gaps). */
    public long discardedRanges() {
        return refill.discardedRanges();
    }

    /** Whether any call of this instance ever got numbers from Redis. */
    @Override
    public boolean everLoaded() {
        return issued.sum() > 0;
    }

    /** What this node remembers about the sequence; reads memory only. */
    public SequenceStatus status() {
        return new SequenceStatus(bizTag, rangeKey, lastIssued, refill.lastRange(), issued.sum(), scripts.nextCalls(),
                coalescedCalls(), refill.installedAhead(), refill.refills(),
                refill.refillNanos(), refill.discardedRanges(), refill.waitedCalls(), lastFailure.failing(),
                lastFailure.failure(), lastFailure.at());
    }

    @Override
    public String toString() {
        return "RedisSegmentIdGenerator[" + bizTag + ", " + rangeKey + "]";
    }
}

