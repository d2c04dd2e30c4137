package io.github.idworker.benchmarks;

import io.github.idworker.segment.SegmentAllocator;
import me.ahoo.cosid.segment.IdSegmentDistributor;

/**
 * CosId's {@link IdSegmentDistributor} over one of our {@link SegmentAllocator}s, so that CosId's
 * {@code SegmentChainId} takes its ranges from the very store our generator uses and both pay the same for a
 * range (with H2: one transaction).
 *
 * <p>Guarantees: every {@link #nextMaxId(long)} returns the last number of a range of exactly {@code step}
 * numbers that no other call of this distributor, and no other user of the tag, receives. CosId may ask for
 * many steps at once (its chain loads several segments in one call), more than the {@code int} our allocator
 * takes: such a request is taken in consecutive parts under this object's lock. The parts are adjacent because
 * the tag is fresh and random and this distributor is its only user; anyone else allocating from the same tag
 * at the same time would break that, and the call then fails instead of returning a range with a hole.
 */
final class SegmentAllocatorDistributor implements IdSegmentDistributor {

    private final SegmentAllocator allocator;
    private final String tag;
    private final long step;

    SegmentAllocatorDistributor(SegmentAllocator allocator, String tag, long step) {
        IdSegmentDistributor.ensureStep(step);
        this.allocator = allocator;
        this.tag = tag;
        this.step = step;
    }

    @Override
    public String getNamespace() {
        return "idworker-benchmarks";
    }

    @Override
    public String getName() {
        return tag;
    }

    @Override
    public long getStep() {
        return step;
    }

    @Override
    public synchronized long nextMaxId(long step) {
        IdSegmentDistributor.ensureStep(step);
        long left = step;
        long expectedFirst = Long.MIN_VALUE;
        long maxId = 0;
        while (left > 0) {
            int part = (int) Math.min(left, Integer.MAX_VALUE);
            var segment = allocator.allocate(tag, part);
            if (expectedFirst != Long.MIN_VALUE && segment.firstId() != expectedFirst) {
                throw new IllegalStateException("tag " + tag + " was allocated by someone else while a range of "
                        + step + " was taken in parts: expected " + expectedFirst + ", got " + segment);
            }
            expectedFirst = segment.maxId() + 1;
            maxId = segment.maxId();
            left -= part;
        }
        return maxId;
    }
}
