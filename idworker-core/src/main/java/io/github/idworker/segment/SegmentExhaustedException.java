package io.github.idworker.segment;

import io.github.idworker.IdWorkerException;

/**
 * The numbers of a segment tag have run out: its next range would pass the largest number the store or the
 * generator can represent. Nothing was allocated or issued.
 */
public class SegmentExhaustedException extends IdWorkerException {

    private final String bizTag;
    private final long maxId;

    /**
     * @param bizTag the exhausted tag
     * @param maxId the tag's current high-water
     * @param detail what limit was hit and what to do
     */
    public SegmentExhaustedException(String bizTag, long maxId, String detail) {
        super("Segment tag '" + bizTag + "' is exhausted at max_id " + maxId + ": " + detail);
        this.bizTag = bizTag;
        this.maxId = maxId;
    }

    public String getBizTag() {
        return bizTag;
    }

    /** The tag's high-water when the allocation was refused. */
    public long getMaxId() {
        return maxId;
    }
}
