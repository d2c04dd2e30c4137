package io.github.idworker.pool;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;

/**
 * What this node remembers about one pool, for meters, health and operators: taking it never calls Redis or the
 * database, unlike {@code RedisIdPools.status(entity)}. The level is the last one this node saw, from a take's
 * reply or a refill check, so it may lag behind the takes of other nodes. The counters only grow.
 *
 * @param entity the entity key
 * @param level IDs in the pool when this node last saw it, -1 before it saw it
 * @param levelAt when that was, or {@code null}
 * @param thresholdLevel below this level a refill starts
 * @param maxPoolSize the most IDs the pool ever holds
 * @param checkInterval how often this node checks the pool
 * @param staleAfter how long without a finished check makes the snapshot {@link #stale() stale}:
 *        {@code 3 × check-interval + lock-ttl}, room for two missed checks and one that waits out a dead lock
 * @param trackedAt since when this node refills the pool
 * @param checkedAt when this node's last refill check finished (well or not), or {@code null} before the first
 * @param checkAge time since that check finished (since the pool was tracked, before the first) when this
 *        snapshot was taken, measured on the monotonic clock so a wall-clock step moves no age
 * @param lastCheckOk whether that check left the pool at or above its threshold
 * @param lastCheckFailure why that check failed or could not refill, or {@code null}
 * @param takeFailing whether this node's last take failed for want of Redis (a refusal is an answer, not a failure)
 * @param lastTakeFailure the last such failure, or {@code null}
 * @param issued IDs this node handed out
 * @param refills refills this node appended
 * @param refillNanos time those refills took, reservation and appends, in nanoseconds
 * @param emptyRefusals takes this node refused because the pool held fewer IDs than asked for
 * @param rateLimited takes this node refused because of the entity's rate limit
 */
public record PoolSnapshot(String entity, long level, @Nullable Instant levelAt, long thresholdLevel,
                           long maxPoolSize, Duration checkInterval, Duration staleAfter, Instant trackedAt,
                           @Nullable Instant checkedAt, Duration checkAge, boolean lastCheckOk,
                           @Nullable String lastCheckFailure, boolean takeFailing, @Nullable String lastTakeFailure,
                           long issued, long refills, long refillNanos, long emptyRefusals, long rateLimited) {

    /** Whether memory says the pool is empty: the level this node saw last is 0. */
    public boolean empty() {
        return level == 0;
    }

    /**
     * Whether no refill check has finished for longer than {@link #staleAfter()} (since the pool was tracked,
     * when none ever finished): this node's refiller is stuck, and the level it saw is no longer news.
     */
    public boolean stale() {
        return checkAge.compareTo(staleAfter) > 0;
    }
}
