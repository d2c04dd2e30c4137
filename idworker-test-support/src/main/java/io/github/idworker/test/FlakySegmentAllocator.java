package io.github.idworker.test;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A segment table in memory that keeps the {@link SegmentAllocator} contract (ranges of a tag never overlap) and
 * fails every call with {@link CenterUnavailableException} while {@link #down(boolean) down}, as an unreachable
 * database does: for tests of what generators and their lookups remember about an outage.
 */
public final class FlakySegmentAllocator implements SegmentAllocator {

    private final Map<String, Long> maxIds = new ConcurrentHashMap<>();
    private volatile boolean down;

    /** Makes every later call fail ({@code true}) or work again ({@code false}). */
    public void down(boolean down) {
        this.down = down;
    }

    @Override
    public synchronized Segment allocate(String bizTag, int step) {
        if (down) {
            throw new CenterUnavailableException("segment table unreachable", null);
        }
        return new Segment(bizTag, maxIds.merge(bizTag, (long) step, Long::sum), step);
    }

    @Override
    public boolean register(String bizTag, long startAfter, int defaultStep) {
        return maxIds.putIfAbsent(bizTag, startAfter) == null;
    }
}
