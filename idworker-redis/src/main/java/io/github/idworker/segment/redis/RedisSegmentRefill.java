package io.github.idworker.segment.redis;

import io.github.idworker.StoreLocations;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.StaleSegmentException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Refills the Redis ranges of one {@link RedisSegmentIdGenerator}'s tag from the database, under the tag's refill
 * lock: steps 3 to 8 of the generator's algorithm. Guarantees: a range is allocated only after the lock was taken
 * and installed only while that lock's token still holds it and only above both ranges in the hash, so an install
 * never lowers the sequence; a range that cannot be installed is a gap, never reused; a caller waits at most until
 * its deadline, even while the database hangs; at most one refill ahead of this instance runs at a time.
 *
 * <p>Steps of the synchronous refill ({@link #refillUntilIssued}), after {@code MISSING} or {@code EXHAUSTED}:
 * <ol>
 *   <li>Take the lock, waiting for Redis until the deadline at most. Not taken: poll {@code segment-next} (1 ms,
 *       backing off to 10 ms) until another node's refill lands.</li>
 *   <li>Taken: call {@code segment-next} again; another node may just have refilled.</li>
 *   <li>Still missing: allocate {@code max(step, n)} numbers on the shared refill threads, install them as the
 *       current range and release the lock there; the caller awaits that until its deadline.</li>
 *   <li>Call {@code segment-next} again and repeat until it issues or the deadline passes.</li>
 * </ol>
 *
 * <p>Steps of the refill ahead ({@link #refillAheadSoon}), after a reply that asks for one: on the shared refill
 * threads, take the lock without waiting (another node's refill is as good), ask {@code segment-ahead-check}
 * whether a range is still wanted, allocate {@code step} numbers and install them ahead. A failure only logs and
 * backs the next refill ahead off (100 ms, doubling to 5 s).
 */
final class RedisSegmentRefill {

    // the generator's category: operators set the level of the Redis generator and expect its refills in it
    private static final Logger log = LoggerFactory.getLogger(RedisSegmentIdGenerator.class);
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long FIRST_AHEAD_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_AHEAD_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final RedisSegmentScripts scripts;
    private final SegmentAllocator allocator;
    private final String bizTag;
    private final RedisSegmentOptions options;
    private final List<String> aheadCheckArgs;

    private final AtomicBoolean aheadInFlight = new AtomicBoolean();
    /** Before this {@link System#nanoTime()} no refill ahead starts: the last one failed. */
    private volatile long aheadNotBefore;
    /** Written only by the refill ahead in flight, which {@link #aheadInFlight} makes one at a time. */
    private long aheadBackoffNanos;

    private final LongAdder waitedCalls = new LongAdder();
    private final LongAdder installedRanges = new LongAdder();
    private final LongAdder installedAhead = new LongAdder();
    private final LongAdder discardedRanges = new LongAdder();
    private final LongAdder refills = new LongAdder();
    private final LongAdder refillNanos = new LongAdder();
    private volatile @Nullable Segment lastRange;

    /**
     * @param lowMark numbers left in the current range below which a range is wanted ahead; "0" wants none
     */
    RedisSegmentRefill(RedisSegmentScripts scripts, SegmentAllocator allocator, String bizTag,
                       RedisSegmentOptions options, String lowMark) {
        this.scripts = scripts;
        this.allocator = allocator;
        this.bizTag = bizTag;
        this.options = options;
        this.aheadCheckArgs = List.of(lowMark);
    }

    /**
     * Refills until a {@code segment-next} call with {@code args} issues {@code count} numbers, and returns that
     * call's reply; {@code reply} is the call that found the range missing or exhausted.
     *
     * @throws SegmentRefillTimeoutException when nothing was issued by {@code deadline}
     */
    List<Object> refillUntilIssued(int count, List<String> args, List<Object> reply, long deadline) {
        waitedCalls.increment();
        long pause = FIRST_PAUSE_NANOS;
        // an interrupt does not cut the wait short: this call may serve callers combined with it who were not
        // interrupted, and maxWait bounds it anyway; the flag is restored on the way out
        boolean interrupted = false;
        try {
            while (true) {
                scripts.expectRefillStatus(reply);
                String token = scripts.newToken();
                if (scripts.lock(token, deadline)) {
                    boolean handedOver = false;
                    try {
                        reply = scripts.next(args, deadline);
                        if (RedisSegmentScripts.issuedLast(reply) != 0) {
                            return reply;
                        }
                        scripts.expectRefillStatus(reply);
                        Future<?> refill = refillInBackground(token, Math.max(options.step(), count));
                        handedOver = true;
                        interrupted |= awaitRefill(refill, deadline);
                    } finally {
                        if (!handedOver) {
                            scripts.unlock(token, deadline);
                        }
                    }
                } else {
                    timeOutAfter(deadline);
                    LockSupport.parkNanos(Math.max(1, Math.min(pause, deadline - System.nanoTime())));
                    interrupted |= Thread.interrupted();
                    pause = Math.min(2 * pause, MAX_PAUSE_NANOS);
                }
                reply = scripts.next(args, deadline);
                if (RedisSegmentScripts.issuedLast(reply) != 0) {
                    return reply;
                }
                timeOutAfter(deadline);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void timeOutAfter(long deadline) {
        if (System.nanoTime() - deadline > 0) {
            throw new SegmentRefillTimeoutException(bizTag, options.maxWait(), RedisSegmentIdGenerator.MAX_WAIT_PROPERTY,
                    null);
        }
    }

    /**
     * Runs the refill of a lock holder on the shared refill threads, which release the lock when done, so that the
     * caller's wait stays bounded by {@code maxWait} even while the database hangs (a statement timeout or a pool's
     * connection timeout may be far longer).
     */
    private Future<?> refillInBackground(String token, int size) {
        FutureTask<Void> task = new FutureTask<>(() -> {
            try {
                refill(token, size, false);
            } finally {
                scripts.unlock(token);
            }
            return null;
        });
        try {
            RefillAheadExecutor.SHARED.execute(task);
        } catch (RuntimeException e) {
            task.run(); // no thread to hand it to: refill here, unbounded by maxWait but not lost
        }
        return task;
    }

    /**
     * Waits for a refill until {@code deadline}; its failure is the caller's. Returns whether the thread was
     * interrupted meanwhile (the wait goes on: see {@link #refillUntilIssued}).
     */
    private boolean awaitRefill(Future<?> refill, long deadline) {
        boolean interrupted = false;
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                refill.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (TimeoutException e) {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                throw new SegmentRefillTimeoutException(bizTag, options.maxWait(),
                        RedisSegmentIdGenerator.MAX_WAIT_PROPERTY, null);
            } catch (ExecutionException e) {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new IdWorkerException("A refill of segment tag '" + bizTag + "' failed", e.getCause());
            }
        }
    }

    /** Starts one background refill ahead unless one is running or the last one failed a moment ago. */
    void refillAheadSoon() {
        if (aheadInFlight.get() || System.nanoTime() - aheadNotBefore < 0 || !aheadInFlight.compareAndSet(false, true)) {
            return;
        }
        try {
            RefillAheadExecutor.SHARED.execute(this::refillAheadTask);
        } catch (RuntimeException e) {
            aheadInFlight.set(false);
            log.warn("Could not start a refill ahead of segment tag '{}': {}", bizTag,
                    StoreLocations.redact(e.toString()));
        }
    }

    private void refillAheadTask() {
        try {
            refillAhead();
            aheadBackoffNanos = 0;
        } catch (RuntimeException e) {
            aheadBackoffNanos = aheadBackoffNanos == 0 ? FIRST_AHEAD_BACKOFF_NANOS
                    : Math.min(2 * aheadBackoffNanos, MAX_AHEAD_BACKOFF_NANOS);
            aheadNotBefore = System.nanoTime() + aheadBackoffNanos;
            log.warn("A refill ahead of segment tag '{}' failed; callers keep the current range and refill "
                    + "themselves when it runs out, the next refill ahead starts in {} ms at the earliest: {}", bizTag,
                    TimeUnit.NANOSECONDS.toMillis(aheadBackoffNanos), StoreLocations.redact(e.toString()));
        } finally {
            aheadInFlight.set(false);
        }
    }

    /** Installs a range ahead if one is still wanted; gives up at once when another refill holds the lock. */
    private void refillAhead() {
        String token = scripts.newToken();
        if (!scripts.lock(token)) {
            return;
        }
        try {
            String wanted = scripts.aheadCheck(aheadCheckArgs);
            switch (wanted) {
                case "NONE" -> {
                    // another node's refill was first
                }
                case "AHEAD", "CURRENT" -> refill(token, options.step(), true);
                default -> throw new CenterUnavailableException("Redis gave an unexpected reply to "
                        + RedisSegmentScripts.AHEAD_CHECK.name() + " for segment tag '" + bizTag + "': " + wanted, null);
            }
        } finally {
            scripts.unlock(token);
        }
    }

    /** Allocates a range from the database and installs it; called while holding the lock. */
    private void refill(String token, int size, boolean ahead) {
        long started = System.nanoTime();
        try {
            allocateAndInstall(token, size, ahead);
        } finally {
            refills.increment();
            refillNanos.add(System.nanoTime() - started);
        }
    }

    private void allocateAndInstall(String token, int size, boolean ahead) {
        Segment segment = allocator.allocate(bizTag, size);
        if (segment.firstId() < 1) {
            // numbers start at 1: the script's replies use 0 and the sign, so a range reaching 0 or below is never
            // installed (the allocated numbers are a gap)
            throw new IdWorkerException("The table gave " + segment + " for segment tag '" + bizTag + "': a Redis "
                    + "sequence issues numbers from 1 to " + RedisSegmentIdGenerator.MAX_NUMBER + ", so the tag's "
                    + "max_id must be 0 or more; raise it, or use the in-process generator for numbers below 1");
        }
        if (segment.lastId() > RedisSegmentIdGenerator.MAX_NUMBER) {
            throw new SegmentExhaustedException(bizTag, segment.maxId(), "the Redis generator issues numbers up to "
                    + RedisSegmentIdGenerator.MAX_NUMBER + " (2^53 - 1, exact in Lua). Use a new tag or the "
                    + "in-process generator.");
        }
        List<Object> reply = scripts.install(token, segment, ahead);
        String status = scripts.text(reply, 0);
        switch (status) {
            case "OK" -> {
                installedRanges.increment();
                boolean wentAhead = "AHEAD".equals(scripts.text(reply, 1));
                if (wentAhead) {
                    installedAhead.increment();
                }
                lastRange = segment;
                log.debug("Installed {} in {}{}", segment, scripts.rangeKey(), wentAhead ? " ahead" : "");
            }
            case "NOT_OWNER" -> {
                discardedRanges.increment();
                log.warn("Discarded {} of segment tag '{}' (a gap): this refill no longer held the lock {} when it "
                        + "came to install the range; the lock expired (idworker.segment.redis.lock-ttl {} is shorter "
                        + "than the database took) or Redis lost its data", segment, bizTag, scripts.lockKey(),
                        options.lockTtl());
            }
            case "AHEAD_TAKEN" -> {
                discardedRanges.increment();
                log.warn("Discarded {} of segment tag '{}' (a gap): another refill installed a range ahead while this "
                        + "one held the lock {}; the lock expired (idworker.segment.redis.lock-ttl {})", segment,
                        bizTag, scripts.lockKey(), options.lockTtl());
            }
            case "BELOW" -> {
                discardedRanges.increment();
                throw new StaleSegmentException(bizTag, segment, scripts.number(reply, 1), "Redis key "
                        + scripts.rangeKey());
            }
            default -> throw scripts.unexpected(RedisSegmentScripts.INSTALL, reply);
        }
    }

    long waitedCalls() {
        return waitedCalls.sum();
    }

    long installedRanges() {
        return installedRanges.sum();
    }

    long installedAhead() {
        return installedAhead.sum();
    }

    long discardedRanges() {
        return discardedRanges.sum();
    }

    long refills() {
        return refills.sum();
    }

    long refillNanos() {
        return refillNanos.sum();
    }

    /** The range this instance installed last, or {@code null} before the first. */
    @Nullable Segment lastRange() {
        return lastRange;
    }
}
