package io.github.idworker.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.jspecify.annotations.Nullable;

/*
 * A buffer is one range plus the counter of numbers taken from it. The counter is written by every call of
 * every thread; the range is only read. Were they on one cache line, each call on another core would first
 * pull the line in shared state for the reads and then again in exclusive state for the add, and a reader
 * would lose its copy to every writer: two threads measured at about half a bare AtomicLong. So the counter
 * gets a cache line of its own, padded on both sides through the class hierarchy (HotSpot lays out a
 * superclass's fields before a subclass's), 128 bytes as the JDK's @Contended does, since adjacent-line
 * prefetchers pull lines in pairs. The hierarchy is why the three superclasses below share this file: they are
 * layout, not concepts of their own.
 */

/**
 * One range a {@link SegmentIdGenerator} hands numbers out of, plus the counter of numbers taken from it.
 *
 * <p>Guarantees: the range fields never change once built; the counter, taken through {@link #USED}, sits on a
 * cache line of its own, so the one atomic add of each call never contends with the reads of the range. The empty
 * buffer (no segment) has size 0, so every take from it falls through to the generator's slow path.
 */
final class SegmentBuffer extends SegmentBufferCounter {

    /** Atomic access to {@link SegmentBufferCounter#used}; {@code getAndAdd} hands out indexes of the range. */
    static final VarHandle USED;

    static {
        try {
            USED = MethodHandles.lookup().findVarHandle(SegmentBufferCounter.class, "used", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;

    /**
     * @param segment the range, or {@code null} for the empty buffer
     * @param step the step the load was sized in
     * @param threshold the share of the range after which the next load starts
     */
    SegmentBuffer(@Nullable Segment segment, int step, double threshold) {
        super(segment, step, threshold);
    }
}

/** The read-mostly part of a buffer. */
abstract class SegmentBufferRange {
    /** Indexes are checked for prefetch at most every this many takes; a power of two. */
    private static final long MAX_CHECK_INTERVAL = 1024;

    final @Nullable Segment segment;
    /** The step this load was sized in; the load holds {@code size / step} whole steps. */
    final int step;
    final long first;
    final long size;
    final long prefetchAt;
    /** {@code checkInterval - 1}; {@code prefetchAt} is a multiple of the interval, so one mask test finds it. */
    final long checkMask;
    /** Set under the generator's lock before the buffer is published as current. */
    long activatedNanos;
    volatile boolean prefetchRequested;

    SegmentBufferRange(@Nullable Segment segment, int step, double threshold) {
        this.segment = segment;
        this.step = step;
        this.first = segment == null ? 0 : segment.firstId();
        this.size = segment == null ? 0 : segment.size();
        long wanted = Math.max(0, Math.min(size - 1, (long) (size * threshold)));
        long interval = Math.min(MAX_CHECK_INTERVAL, Long.highestOneBit(Math.max(1, wanted)));
        this.checkMask = interval - 1;
        this.prefetchAt = segment == null ? Long.MAX_VALUE : wanted & -interval;
    }
}

/** The padding before the counter. */
@SuppressWarnings("unused")
abstract class SegmentBufferPadBefore extends SegmentBufferRange {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

    SegmentBufferPadBefore(@Nullable Segment segment, int step, double threshold) {
        super(segment, step, threshold);
    }
}

/** The counter, between the two paddings. */
abstract class SegmentBufferCounter extends SegmentBufferPadBefore {
    /** Numbers taken from this buffer, through {@link SegmentBuffer#USED}; may run past {@code size}. */
    volatile long used;

    SegmentBufferCounter(@Nullable Segment segment, int step, double threshold) {
        super(segment, step, threshold);
    }
}
