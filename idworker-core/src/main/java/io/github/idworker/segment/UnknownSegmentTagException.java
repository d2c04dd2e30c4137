package io.github.idworker.segment;

import io.github.idworker.IdWorkerException;

/**
 * A segment tag is not registered in the store and the allocator does not create tags on first use; nothing was
 * allocated.
 */
public class UnknownSegmentTagException extends IdWorkerException {

    private final String bizTag;

    /**
     * @param bizTag the tag that is missing
     * @param where the store that was asked, e.g. {@code table idworker_segment at jdbc:h2:mem:test}
     */
    public UnknownSegmentTagException(String bizTag, String where) {
        super("Segment tag '" + bizTag + "' is not registered in " + where + ". Register it (list it under "
                + "idworker.segment.tags, or call SegmentAllocator.register), or set idworker.segment.auto-create=true "
                + "to create tags on first use.");
        this.bizTag = bizTag;
    }

    /** The tag that is missing. */
    public String getBizTag() {
        return bizTag;
    }
}
