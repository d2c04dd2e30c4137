package io.github.idworker.segment.redis;

import io.github.idworker.segment.Segment;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * What one {@link RedisSegmentIdGenerator} remembers in memory about its sequence, for meters, health and
 * operators; taking it never calls Redis or the database. The range in Redis is shared by every node, so what
 * this node saw is a lower bound of where the sequence is. The counters only grow.
 *
 * @param tag the segment tag
 * @param rangeKey the Redis hash holding {@code v_l}/{@code v_h}
 * @param lastIssued the last number this node received, or -1 before the first
 * @param lastRange the last range this node installed in Redis, or {@code null}
 * @param issued numbers this node received
 * @param scriptCalls {@code segment-next} script calls this node made, including those that found the range
 *        missing or used up; fewer than the calls it served when concurrent calls were combined
 * @param coalescedCalls calls served by a script call shared with at least one other call of this node
 * @param installedAhead ranges this node installed in Redis ahead of the current one (a caller found the next
 *        range ready instead of waiting for the database)
 * @param refills refills this node ran under the lock (installed or discarded)
 * @param refillNanos time those refills took, allocation and install, in nanoseconds
 * @param discardedRanges ranges this node allocated but could not install (gaps)
 * @param waits calls that found the range missing or exhausted and took part in, or waited for, a refill
 * @param failing whether the last call of this node failed
 * @param lastFailure the last failure, as text, or {@code null}
 * @param lastFailureAt when it happened, or {@code null}
 */
public record SequenceStatus(String tag, String rangeKey, long lastIssued, @Nullable Segment lastRange, long issued,
                             long scriptCalls, long coalescedCalls, long installedAhead, long refills, long refillNanos, long discardedRanges, long waits, boolean failing,
                             @Nullable String lastFailure, @Nullable Instant lastFailureAt) {
}
