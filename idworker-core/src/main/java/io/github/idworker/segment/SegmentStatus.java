package io.github.idworker.segment;

import org.jspecify.annotations.Nullable;

/**
 * What one in-process {@link SegmentIdGenerator} holds in memory at one moment, for meters, health and operators;
 * taking it never calls the store. The counters only grow over the generator's life.
 *
 * @param tag the segment tag
 * @param current the range numbers are taken from, or {@code null} before the first one (or after close)
 * @param next the number the next call gets from {@code current} ({@code current.lastId() + 1} once it is used up)
 * @param prefetched the range loaded ahead and waiting in the second buffer, or {@code null}
 * @param loading whether a load from the store is in flight
 * @param step the step {@code current} was sized in, 0 before the first range; {@code current} holds one or
 *        more whole steps (several when one step would not last {@code min-load-lifetime} at the demand)
 * @param issued numbers handed out by this generator
 * @param refills ranges loaded from the store
 * @param refillNanos time spent in those loads, including failed ones, in nanoseconds
 * @param failedRefills loads that failed
 * @param waits calls that found both buffers empty and had to wait for a load
 * @param lastFailure the failure of the last load when it failed (cleared by the next good one), or {@code null}
 * @param lastFailureAt when that load failed (wall clock), or {@code null}
 * @param closed whether the generator was closed
 */
public record SegmentStatus(String tag, @Nullable Segment current, long next, @Nullable Segment prefetched,
                            boolean loading, int step, long issued, long refills, long refillNanos,
                            long failedRefills, long waits, @Nullable String lastFailure,
                            java.time.@Nullable Instant lastFailureAt, boolean closed) {

    /** Numbers this generator can still hand out without the store: the rest of the current range plus the prefetched one. */
    public long remaining() {
        long rest = current == null ? 0 : Math.max(0, current.lastId() - next + 1);
        return rest + (prefetched == null ? 0 : prefetched.size());
    }

    /**
     * Whether memory says this generator can no longer issue: it is closed, or nothing is left in memory and the
     * last load failed. A generator that has not loaded yet (no range, no failure) is not failing: its first call
     * loads.
     */
    public boolean failing() {
        return closed || remaining() == 0 && lastFailure != null;
    }
}
