package io.github.idworker.benchmarks;

import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.UnknownSegmentTagException;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link SegmentAllocator} that keeps each tag's high-water in an {@link AtomicLong} of this JVM, so a range
 * costs one map lookup and one compare-and-set instead of a store round trip. It lets a benchmark put our
 * generator and a peer's on the same footing: CosId's in-memory distributor pays the same single atomic add.
 *
 * <p>Guarantees, within this instance only (nothing is durable): ranges of one tag never overlap and follow each
 * other without holes from the tag's {@code startAfter}; an unregistered tag gives
 * {@link UnknownSegmentTagException}; a range that would pass {@link Long#MAX_VALUE} gives
 * {@link SegmentExhaustedException} and takes nothing. Thread-safe and lock-free.
 */
final class InMemorySegmentAllocator implements SegmentAllocator {

    private final ConcurrentMap<String, AtomicLong> maxIds = new ConcurrentHashMap<>();

    @Override
    public Segment allocate(String bizTag, int step) {
        if (step < 1) {
            throw new IllegalArgumentException("step must be at least 1, was " + step);
        }
        AtomicLong maxId = maxIds.get(bizTag);
        if (maxId == null) {
            throw new UnknownSegmentTagException(bizTag, "the benchmark's in-memory allocator");
        }
        while (true) {
            long current = maxId.get();
            if (current > Long.MAX_VALUE - step) {
                throw new SegmentExhaustedException(bizTag, current, "a range of " + step + " would pass Long.MAX_VALUE");
            }
            if (maxId.compareAndSet(current, current + step)) {
                return new Segment(bizTag, current + step, step);
            }
        }
    }

    @Override
    public boolean register(String bizTag, long startAfter, int defaultStep) {
        if (bizTag == null || bizTag.isBlank() || bizTag.length() > 128) {
            throw new IllegalArgumentException("bizTag must be 1 to 128 characters, was '" + bizTag + "'");
        }
        if (startAfter < 0 || defaultStep < 1) {
            throw new IllegalArgumentException("startAfter must be 0 or more and defaultStep at least 1, were "
                    + startAfter + " and " + defaultStep);
        }
        return maxIds.putIfAbsent(bizTag, new AtomicLong(startAfter)) == null;
    }

    /** The tag's high-water: the last number of the last range handed out, or its {@code startAfter}. */
    long maxId(String bizTag) {
        AtomicLong maxId = maxIds.get(bizTag);
        return maxId == null ? 0 : maxId.get();
    }
}
