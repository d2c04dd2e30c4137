package io.github.idworker.segment;

/**
 * A tag's row was moved back: its {@code max_id} lies below the {@code high_water} the allocator keeps in the
 * same row, the end of the last range it handed out. Numbers between the two may already be in use, so the
 * allocator hands out no range of the tag — in a running generator, a restarted one or another node alike —
 * until an operator raises {@code max_id} to at least {@code high_water}. Nothing was allocated.
 *
 * <p>What it cannot see: a row moved back together with its {@code high_water} (a restore of the whole
 * database or table from an older backup, or both columns lowered by hand).
 */
public class SegmentRowMovedBackException extends StaleSegmentException {

    private final String table;
    private final long maxId;
    private final long highWater;

    /**
     * @param bizTag the tag
     * @param table the table holding the row
     * @param location where the table lives, for people (a JDBC URL without credentials)
     * @param maxId the row's {@code max_id}
     * @param highWater the row's {@code high_water}, above {@code maxId}
     */
    public SegmentRowMovedBackException(String bizTag, String table, String location, long maxId, long highWater) {
        super("Segment tag '" + bizTag + "' in table " + table + " at " + location + " was moved back: its max_id "
                + maxId + " lies below its high_water " + highWater + ", the end of the last range handed out, so "
                + "numbers " + (maxId + 1) + " to " + highWater + " may already be in use. Nothing was allocated; no "
                + "allocator hands out a range of the tag until you raise max_id to at least " + highWater
                + " (UPDATE " + table + " SET max_id = " + highWater + " WHERE biz_tag = <the tag>).",
                bizTag, null, highWater);
        this.table = table;
        this.maxId = maxId;
        this.highWater = highWater;
    }

    /** The table holding the tag's row. */
    public String getTable() {
        return table;
    }

    /** The row's {@code max_id}: where the allocator would have continued. */
    public long getMaxId() {
        return maxId;
    }

    /** The row's {@code high_water}: every number up to it may have been handed out. */
    public long getHighWater() {
        return highWater;
    }
}
