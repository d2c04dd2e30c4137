package io.github.idworker.segment;

/**
 * One range of numbers handed out by a {@link SegmentAllocator}: {@code (maxId − step, maxId]}, that is
 * {@link #firstId()} to {@link #lastId()} inclusive. No other allocation of the same tag, by any allocator over
 * the same store, overlaps it.
 *
 * @param bizTag the tag the range belongs to
 * @param maxId the last number of the range, the tag's {@code max_id} right after this allocation
 * @param step how many numbers the range holds, at least 1
 */
public record Segment(String bizTag, long maxId, int step) {

    public Segment {
        if (step < 1) {
            throw new IllegalArgumentException("step must be at least 1, was " + step);
        }
        if (maxId < Long.MIN_VALUE + step) {
            throw new IllegalArgumentException("maxId " + maxId + " leaves no room for " + step + " numbers");
        }
    }

    /** The first number of the range. */
    public long firstId() {
        return maxId - step + 1;
    }

    /** The last number of the range, equal to {@link #maxId()}. */
    public long lastId() {
        return maxId;
    }

    /** How many numbers the range holds. */
    public int size() {
        return step;
    }

    /** Whether {@code id} lies in the range. */
    public boolean contains(long id) {
        return id >= firstId() && id <= maxId;
    }

    @Override
    public String toString() {
        return "Segment[" + bizTag + " (" + (maxId - step) + ", " + maxId + "]]";
    }
}
