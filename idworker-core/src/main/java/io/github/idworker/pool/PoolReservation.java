package io.github.idworker.pool;

/**
 * Offsets {@code firstOffset..lastOffset} (both included) reserved for one entity in one committed transaction:
 * nobody else was or will be given them.
 *
 * @param entity the entity's settings as read in the reserving transaction, so a refill chunks and shuffles by the
 *        step it reserved with
 */
public record PoolReservation(PoolEntity entity, long firstOffset, long lastOffset) {

    public PoolReservation {
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("empty reservation " + firstOffset + ".." + lastOffset);
        }
    }

    /** How many offsets were reserved. */
    public long size() {
        return lastOffset - firstOffset + 1;
    }
}
