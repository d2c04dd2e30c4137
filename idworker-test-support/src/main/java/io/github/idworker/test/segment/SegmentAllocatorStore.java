package io.github.idworker.test.segment;

import io.github.idworker.segment.SegmentAllocator;

/**
 * One segment store under test, seen by {@link AbstractSegmentAllocatorContractTest}: how to make allocators over
 * it and how to look into it. Implementations talk to a real store; none of these hooks may fake its behaviour.
 */
public interface SegmentAllocatorStore extends AutoCloseable {

    /**
     * A new, independent allocator over the same store, as another process would create it.
     *
     * @param autoCreateTags whether the allocator creates unknown tags on first use (starting after 0)
     */
    SegmentAllocator newAllocator(boolean autoCreateTags);

    /** The high-water the store keeps for {@code bizTag}, or {@code -1} when it has no record of the tag. */
    long storedMaxId(String bizTag);

    /**
     * Sets the stored high-water of {@code bizTag} the way an operator editing the store by hand would: that one
     * value and nothing else, whatever the allocator keeps beside it (for a table: {@code UPDATE ... SET max_id = ?
     * WHERE biz_tag = ?}). The kit lowers it to move the row back, and raises it again as the operator's recovery.
     */
    void editMaxId(String bizTag, long maxId);

    /** Removes every record of {@code bizTag}, so nothing is left for another test to trip on. */
    void deleteTag(String bizTag);

    @Override
    default void close() throws Exception {
    }
}
