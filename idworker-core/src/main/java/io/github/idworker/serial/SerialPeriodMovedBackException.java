package io.github.idworker.serial;

import io.github.idworker.IdWorkerException;

/**
 * A (rule, period) row was moved back: its {@code high_water} (where reservations would continue) lies below the
 * {@code reserved_to} the store keeps in the same row, the end of the last reservation it made. Numbers between
 * the two may already be printed in strings, so the store reserves nothing of that period — for a running node,
 * a restarted one or another node alike, {@code LocalSerialNumbers} and {@code RedisSerialNumbers} refills alike —
 * until an operator raises {@code high_water} to at least {@code reserved_to}. Nothing was reserved.
 *
 * <p>What it cannot see: a row moved back together with its {@code reserved_to} (a restore of the whole database
 * or table from an older backup, both columns lowered by hand, or the row deleted).
 */
public class SerialPeriodMovedBackException extends IdWorkerException {

    private final String rule;
    private final String period;
    private final String table;
    private final long highWater;
    private final long reservedTo;

    /**
     * @param rule the rule's name
     * @param period the period key, e.g. {@code 20261123}
     * @param table the table holding the period's row
     * @param location where the table lives, for people (a JDBC URL without credentials)
     * @param highWater the row's {@code high_water}
     * @param reservedTo the row's {@code reserved_to}, above {@code highWater}
     */
    public SerialPeriodMovedBackException(String rule, String period, String table, String location, long highWater,
                                          long reservedTo) {
        super("Serial rule '" + rule + "' period " + period + " in table " + table + " at " + location + " was moved "
                + "back: its high_water " + highWater + " lies below its reserved_to " + reservedTo + ", the end of "
                + "the last reservation, so numbers " + (highWater + 1) + " to " + reservedTo + " may already be in "
                + "strings handed out. Nothing was reserved; no node reserves numbers of this period until you raise "
                + "high_water to at least " + reservedTo + " (UPDATE " + table + " SET high_water = " + reservedTo
                + " WHERE rule_name = '" + rule + "' AND period = '" + period + "').");
        this.rule = rule;
        this.period = period;
        this.table = table;
        this.highWater = highWater;
        this.reservedTo = reservedTo;
    }

    public String getRule() {
        return rule;
    }

    /** The period key, e.g. {@code 20261123}. */
    public String getPeriod() {
        return period;
    }

    /** The table holding the period's row. */
    public String getTable() {
        return table;
    }

    /** The row's {@code high_water}: where reservations would have continued. */
    public long getHighWater() {
        return highWater;
    }

    /** The row's {@code reserved_to}: every number up to it may have been handed out. */
    public long getReservedTo() {
        return reservedTo;
    }
}
