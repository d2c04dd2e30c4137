package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

/**
 * An entity's row was moved back: its {@code current_offset} (where reservations would continue) lies below the
 * {@code reserved_to} the store keeps in the same row, the end of the last reservation it made. The IDs of the
 * offsets between the two may already have been handed out, so the store reserves nothing for the entity — for
 * every node, also after Redis lost the pool's list and its high-water — until an operator raises
 * {@code current_offset} to at least {@code reserved_to}. Nothing was reserved.
 *
 * <p>What it cannot see: a row moved back together with its {@code reserved_to} (a restore of the whole database
 * or table from an older backup, both columns lowered by hand, or the row deleted and inserted again).
 */
public class PoolRowMovedBackException extends IdWorkerException {

    private final String entity;
    private final String table;
    private final long currentOffset;
    private final long reservedTo;

    /**
     * @param entity the entity key
     * @param table the table holding the entity's row
     * @param location where the table lives, for people (a JDBC URL without credentials)
     * @param currentOffset the row's {@code current_offset}
     * @param reservedTo the row's {@code reserved_to}, above {@code currentOffset}
     */
    public PoolRowMovedBackException(String entity, String table, String location, long currentOffset,
                                     long reservedTo) {
        super("ID pool entity '" + entity + "' in table " + table + " at " + location + " was moved back: its "
                + "current_offset " + currentOffset + " lies below its reserved_to " + reservedTo + ", the end of the "
                + "last reservation, so the IDs of offsets " + (currentOffset + 1) + " to " + reservedTo + " may "
                + "already have been handed out. Nothing was reserved; no node refills the pool until you raise "
                + "current_offset to at least " + reservedTo + " (UPDATE " + table + " SET current_offset = "
                + reservedTo + " WHERE entity_key = '" + entity + "').");
        this.entity = entity;
        this.table = table;
        this.currentOffset = currentOffset;
        this.reservedTo = reservedTo;
    }

    public String getEntity() {
        return entity;
    }

    /** The table holding the entity's row. */
    public String getTable() {
        return table;
    }

    /** The row's {@code current_offset}: where reservations would have continued. */
    public long getCurrentOffset() {
        return currentOffset;
    }

    /** The row's {@code reserved_to}: the IDs of every offset up to it may have been handed out. */
    public long getReservedTo() {
        return reservedTo;
    }
}
