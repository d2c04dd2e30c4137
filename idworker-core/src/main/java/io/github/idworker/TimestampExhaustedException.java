package io.github.idworker;

import java.time.Instant;

/**
 * The clock has passed the last instant the layout's timestamp bits can encode; nothing was issued, because a
 * shifted timestamp beyond that point would wrap into one already used.
 */
public class TimestampExhaustedException extends IdWorkerException {

    private final Instant endOfLife;

    public TimestampExhaustedException(String namespace, Instant endOfLife, Instant now) {
        super("The timestamp bits of namespace '" + namespace + "' ran out at " + endOfLife + " and the clock reads "
                + now + "; no identifier was issued. A longer-lived layout needs a new idworker.namespace "
                + "(idworker.snowflake.timestamp-bits, idworker.snowflake.epoch).");
        this.endOfLife = endOfLife;
    }

    /** The last instant the layout can encode. */
    public Instant getEndOfLife() {
        return endOfLife;
    }
}
