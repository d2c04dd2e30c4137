package io.github.idworker.pool;

import java.time.Instant;

/**
 * Something an operator should hear about one pool: it is running low or ran dry.
 *
 * @param kind {@link Kind#LOW} or {@link Kind#EMPTY}
 * @param entity the entity key
 * @param level IDs in the pool when the alarm was raised
 * @param thresholdLevel the level below which the pool counts as low
 * @param requested for {@link Kind#EMPTY}, the IDs the refused take asked for; 0 for {@link Kind#LOW}
 * @param ratePerSecond IDs taken from the pool, across all nodes, in the last full second
 * @param at when the alarm was raised
 * @param reason why, in words (e.g. the last refill failure)
 */
public record PoolAlarm(Kind kind, String entity, long level, long thresholdLevel, int requested, long ratePerSecond,
                        Instant at, String reason) {

    /** What the alarm is about. */
    public enum Kind {
        /** A refill check found the pool below its threshold and could not bring it back above. */
        LOW,
        /** A take found fewer IDs than it asked for and was refused. */
        EMPTY
    }

    @Override
    public String toString() {
        return "ID pool '" + entity + "' " + (kind == Kind.EMPTY ? "is empty" : "is low") + ": level " + level
                + " (threshold " + thresholdLevel + ")" + (requested > 0 ? ", " + requested + " asked for" : "")
                + ", rate " + ratePerSecond + "/s" + (reason == null || reason.isEmpty() ? "" : ", " + reason);
    }
}
