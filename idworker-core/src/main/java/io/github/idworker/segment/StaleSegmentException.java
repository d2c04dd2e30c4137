package io.github.idworker.segment;

import io.github.idworker.IdWorkerException;
import org.jspecify.annotations.Nullable;

/**
 * The allocator handed out a range that does not lie above numbers already issued for the tag, so using it could
 * repeat numbers; it was discarded and nothing was issued. This means the store's high-water went back (a
 * database restored from an old backup, or {@code max_id} lowered by hand).
 *
 * <p>Thrown by a generator that compares a new range with the ones it used, and, as
 * {@link SegmentRowMovedBackException}, by an allocator whose row shows that it went back, before it hands out
 * any range: the second also stops generators that never saw the old ranges (a restart, another node).
 */
public class StaleSegmentException extends IdWorkerException {

    private final String bizTag;
    private final @Nullable Segment segment;
    private final long issuedHigh;

    /**
     * @param bizTag the tag
     * @param segment the range the allocator returned
     * @param issuedHigh the end of the range already in use, which numbers may have been issued up to
     * @param where where that range lives, e.g. the Redis key
     */
    public StaleSegmentException(String bizTag, Segment segment, long issuedHigh, String where) {
        super("The allocator returned " + segment + " for segment tag '" + bizTag + "', not above "
                + issuedHigh + ", the end of the range already in use in " + where + ". The store's max_id went "
                + "back; raise max_id of tag '" + bizTag + "' above " + issuedHigh + " before issuing more numbers.");
        this.bizTag = bizTag;
        this.segment = segment;
        this.issuedHigh = issuedHigh;
    }

    /**
     * For subclasses that say themselves what went back.
     *
     * @param segment the range that was refused, or {@code null} when none was handed out
     */
    protected StaleSegmentException(String message, String bizTag, @Nullable Segment segment, long issuedHigh) {
        super(message);
        this.bizTag = bizTag;
        this.segment = segment;
        this.issuedHigh = issuedHigh;
    }

    public String getBizTag() {
        return bizTag;
    }

    /** The range that was refused; {@code null} when the allocator refused before handing one out. */
    public @Nullable Segment getSegment() {
        return segment;
    }

    /** The highest number that may already have been issued for the tag. */
    public long getIssuedHigh() {
        return issuedHigh;
    }
}
