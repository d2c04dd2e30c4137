package io.github.idworker.segment.redis;

import io.github.idworker.StoreLocations;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The Lua scripts of one {@link RedisSegmentIdGenerator}'s tag, loaded once per JVM and run against the tag's two
 * keys. Guarantees: every reply it returns is non-empty; a Redis failure surfaces as
 * {@link CenterUnavailableException} (an {@link IdWorkerException} passes unchanged); a bounded call returns or
 * throws {@link SegmentRefillTimeoutException} by its deadline; a lock token is unique across processes.
 */
final class RedisSegmentScripts {

    // the generator's category: operators set the level of the Redis generator and expect its lock warnings in it
    private static final Logger log = LoggerFactory.getLogger(RedisSegmentIdGenerator.class);
    static final LuaScript NEXT = LuaScript.load(RedisSegmentIdGenerator.class, "segment-next");
    static final LuaScript AHEAD_CHECK = LuaScript.load(RedisSegmentIdGenerator.class, "segment-ahead-check");
    static final LuaScript INSTALL = LuaScript.load(RedisSegmentIdGenerator.class, "segment-install");
    private static final LuaScript LOCK = RefillLock.ACQUIRE;
    private static final LuaScript UNLOCK = RefillLock.RELEASE;

    private final RedisScriptExecutor executor;
    private final String bizTag;
    private final String rangeKey;
    private final String lockKey;
    private final List<String> rangeKeys;
    private final List<String> lockKeys;
    private final List<String> installKeys;
    private final Duration lockTtl;
    private final String lockTtlMillis;
    private final Duration maxWait;
    /** Built once: a bounded call of the hot path allocates no supplier for its timeout. */
    private final Supplier<SegmentRefillTimeoutException> timedOut = this::redisTimedOut;
    private final String tokenPrefix = UUID.randomUUID() + ":";
    private final AtomicLong tokens = new AtomicLong();
    private final LongAdder nextCalls = new LongAdder();

    RedisSegmentScripts(RedisScriptExecutor executor, String bizTag, String rangeKey, String lockKey,
                        Duration lockTtl, Duration maxWait) {
        this.executor = executor;
        this.bizTag = bizTag;
        this.rangeKey = rangeKey;
        this.lockKey = lockKey;
        this.rangeKeys = List.of(rangeKey);
        this.lockKeys = List.of(lockKey);
        this.installKeys = List.of(rangeKey, lockKey);
        this.lockTtl = lockTtl;
        this.lockTtlMillis = Long.toString(lockTtl.toMillis());
        this.maxWait = maxWait;
    }

    String rangeKey() {
        return rangeKey;
    }

    String lockKey() {
        return lockKey;
    }

    /** How many {@code segment-next} calls were made. */
    long nextCalls() {
        return nextCalls.sum();
    }

    /**
     * One {@code segment-next} call, whose answer is awaited until {@code deadline} only: a call that completes in
     * Redis after that leaves its numbers unused (a gap), never issued twice.
     */
    List<Object> next(List<String> args, long deadline) {
        nextCalls.increment();
        return run(NEXT, rangeKeys, args, deadline, true);
    }

    /** {@code segment-ahead-check}: {@code NONE}, {@code AHEAD} or {@code CURRENT}. */
    String aheadCheck(List<String> args) {
        return text(run(AHEAD_CHECK, rangeKeys, args, 0, false), 0);
    }

    /** {@code segment-install} of {@code segment} under the lock of {@code token}, as the range ahead or current. */
    List<Object> install(String token, Segment segment, boolean ahead) {
        return run(INSTALL, installKeys, List.of(token, Long.toString(segment.firstId() - 1),
                Long.toString(segment.lastId()), Integer.toString(segment.step()), ahead ? "ahead" : "current"), 0, false);
    }

    /** A new owner token of the refill lock. */
    String newToken() {
        return tokenPrefix + tokens.incrementAndGet();
    }

    /** Takes the refill lock for {@code token} without waiting for another holder. */
    boolean lock(String token) {
        return number(run(LOCK, lockKeys, List.of(token, lockTtlMillis), 0, false), 0) == 1;
    }

    /**
     * The lock of a caller, whose wait for Redis ends at {@code deadline}; a lock Redis grants after that is
     * released as soon as the answer comes, so it does not block other refills for {@code lock-ttl}.
     */
    boolean lock(String token, long deadline) {
        return BoundedCalls.call(() -> lock(token), deadline, timedOut, taken -> {
            if (taken) {
                unlock(token);
            }
        });
    }

    /** Releases the lock, waiting for Redis until {@code deadline} at most: the lock expires by itself anyway. */
    void unlock(String token, long deadline) {
        try {
            BoundedCalls.call(() -> {
                unlock(token);
                return null;
            }, deadline, () -> new CenterUnavailableException("no answer in time", null));
        } catch (CenterUnavailableException e) {
            log.debug("Left the release of the refill lock {} of segment tag '{}' running after the caller's "
                    + "deadline; the lock expires after {} at the latest", lockKey, bizTag, lockTtl);
        }
    }

    /** Releases the lock if {@code token} still holds it; a failure is only logged, the lock expires anyway. */
    void unlock(String token) {
        try {
            run(UNLOCK, lockKeys, List.of(token), 0, false);
        } catch (RuntimeException e) {
            log.warn("Could not release the refill lock {} of segment tag '{}'; it expires after {}: {}", lockKey,
                    bizTag, lockTtl, StoreLocations.redact(e.toString()));
        }
    }

    /** The exception of a call whose Redis step did not answer before the caller's deadline. */
    SegmentRefillTimeoutException redisTimedOut() {
        return new SegmentRefillTimeoutException(bizTag, maxWait, RedisSegmentIdGenerator.MAX_WAIT_PROPERTY,
                new CenterUnavailableException("Redis did not answer within the wait; numbers a late call may still "
                        + "take are skipped, never issued", null));
    }

    private List<Object> run(LuaScript script, List<String> keys, List<String> args, long deadline, boolean bounded) {
        List<Object> reply;
        try {
            reply = bounded ? executor.execute(script, keys, args, deadline, timedOut)
                    : executor.execute(script, keys, args);
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

    /**
     * The signed last number of a {@code segment-next} reply that issued numbers, or 0 for a status reply (numbers
     * start at 1). A negative value asks for a range ahead.
     */
    static long issuedLast(List<Object> reply) {
        Object head = reply.get(0);
        if (head instanceof Long n) {
            return n;
        }
        if (head instanceof Number n) {
            return n.longValue();
        }
        String text = head instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(head);
        if (!text.isEmpty() && (text.charAt(0) == '-' || Character.isDigit(text.charAt(0)))) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    /** Fails unless a {@code segment-next} reply that issued nothing asks for a refill. */
    void expectRefillStatus(List<Object> reply) {
        String status = text(reply, 0);
        if (!"MISSING".equals(status) && !"EXHAUSTED".equals(status)) {
            throw unexpected(NEXT, reply);
        }
    }

    CenterUnavailableException unexpected(LuaScript script, List<Object> reply) {
        return new CenterUnavailableException("Redis gave an unexpected reply to " + script.name()
                + " for segment tag '" + bizTag + "': " + ScriptReplies.describe(reply), null);
    }

    String text(List<Object> reply, int index) {
        return ScriptReplies.text(reply, index, "segment tag '" + bizTag + "'");
    }

    long number(List<Object> reply, int index) {
        return ScriptReplies.number(reply, index, "segment tag '" + bizTag + "'");
    }
}
