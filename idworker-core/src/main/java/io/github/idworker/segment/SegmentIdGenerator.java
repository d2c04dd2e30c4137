package io.github.idworker.segment;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;

/**
 * Hands out the numbers of one segment tag from ranges of a {@link SegmentAllocator}, in process, with a double
 * buffer so that a steady caller never waits for the store.
 *
 * <p>Guarantees: numbers are unique across every generator of the tag over the same store (each range is handed
 * out once); one instance hands out increasing ranges, so the numbers one thread receives from it strictly
 * increase; a new instance (a restart) always starts with a fresh range, above every number handed out before
 * — the unused rest of the old loads is skipped: at most two loads, each at most {@code maxStepsPerLoad × maxStep}
 * numbers and in practice about {@code minLoadLifetime} of demand. Numbers of different instances interleave; for
 * one order across processes use the Redis generator.
 *
 * <p>Steps:
 * <ol>
 *   <li><b>Hot path.</b> The current segment is an immutable range plus a counter (one atomic add) of numbers
 *       taken, the counter on a cache line of its own. {@code nextId()} reads the current buffer (one volatile
 *       read), takes index {@code i} with {@code getAndIncrement} and returns {@code first + i} when {@code i}
 *       lies in the range and is not a checkpoint (a multiple of the check interval, one mask test). No lock.
 *       {@code nextIds(n)} takes {@code n} indexes with one {@code getAndAdd}, then the rest from the next
 *       segment when the current one ends inside the batch.</li>
 *   <li><b>Prefetch.</b> The caller that takes the prefetch index submits the load of the next segment to a
 *       small executor; at most one load per generator is in flight and at most one segment waits in the second
 *       buffer. The prefetch index is {@code ⌊size × prefetchThreshold⌋} (default 20 % of the segment) rounded
 *       down to a multiple of the check interval: the largest power of two up to that index, at most 1024, so
 *       the hot path finds it with its one mask test and a segment of a million numbers prefetches within 1024
 *       of 20 %. Loading at 20 % leaves 80 % of the segment's lifetime for one database round trip; loading
 *       earlier only holds the next range longer, which costs nothing but numbers skipped on restart. If the
 *       load fails, every later checkpoint retries it, at most every 50 ms.</li>
 *   <li><b>Step.</b> At each prefetch the demand is measured as the numbers consumed over the last complete
 *       segment plus the consumed part of the current one, divided by the time they took. The next step is what
 *       that demand consumes in {@code targetLifetime} (default 15 minutes), clamped to
 *       {@code [minStep, maxStep]} and to at least half the current step: a surge gets a segment its size at
 *       once, a lull shrinks segments by at most half per refill. When a caller had to wait because both buffers
 *       were empty, the load doubles.</li>
 *   <li><b>Whole steps per load.</b> When one step of that size would last less than {@code minLoadLifetime}
 *       (default 1 s) at the measured demand — a fixed small step at high demand — the load reserves {@code k}
 *       whole steps in one allocation, {@code k} what that time's demand consumes, at most
 *       {@code maxStepsPerLoad}, at most four times the current load's steps, and 1 at the first measure (a few
 *       numbers of the first range, perhaps one burst). A lull shrinks the load by at most half per load. The
 *       load is one contiguous range, so the hot path is the same, and a switch comes once per load instead of
 *       once per step.</li>
 *   <li><b>Switch.</b> A caller that finds the current segment used up takes the lock, makes the prefetched
 *       segment current and retries. Only when no segment is prefetched does it wait (a "waited call",
 *       {@link #waitedCalls()}): it starts a load unless one is in flight and waits for it, at most
 *       {@code maxWait} per call, then gets {@link SegmentRefillTimeoutException} carrying the last store
 *       failure. An unknown tag or an exhausted one fails at once with the allocator's exception.</li>
 *   <li><b>Checks.</b> A range that does not lie above the previous one of this instance is discarded with
 *       {@link StaleSegmentException}: the store went back. An allocator that sees the store went back refuses
 *       before handing out a range (a {@link StaleSegmentException} too), which also stops an instance that
 *       never saw the earlier ranges; both fail callers at once, like an unknown tag.</li>
 * </ol>
 * Thread-safe. {@link #close()} stops loading; later calls fail. This class holds steps 1 and 5 (the take path);
 * {@code SegmentLoader} runs the loads and their checks, {@code LoadSizer} sizes them, both under this class's lock.
 */
public class SegmentIdGenerator implements StoreBackedGenerator, AutoCloseable {

    private final String bizTag;
    private final SegmentGeneratorOptions options;
    private final LongSupplier clock;
    private final long maxWaitNanos;
    private final SegmentBuffer empty = new SegmentBuffer(null, 0, 0.5);

    /** The segment numbers are taken from; replaced only under {@link #lock}. */
    private volatile SegmentBuffer current = empty;

    /** Guards the switch of buffers here and the state of {@link #loader} and {@link #sizer}. */
    private final Object lock = new Object();
    private final SegmentLoader loader;
    private final LoadSizer sizer;
    /** Numbers handed out from buffers no longer current, counted when they were retired; guarded by lock. */
    private long retiredIssued;

    private final LongAdder waitedCalls = new LongAdder();

    /**
     * @param allocator where ranges come from
     * @param bizTag the tag whose numbers this generator hands out
     * @param options steps, prefetch threshold, bounded wait and executor
     */
    public SegmentIdGenerator(SegmentAllocator allocator, String bizTag, SegmentGeneratorOptions options) {
        if (allocator == null) {
            throw new IllegalArgumentException("allocator must not be null");
        }
        if (bizTag == null || bizTag.isBlank()) {
            throw new IdWorkerConfigurationException("idworker.segment.tags", "segment tag must not be blank, was '" + bizTag + "'");
        }
        this.bizTag = bizTag;
        this.options = options == null ? SegmentGeneratorOptions.defaults() : options;
        this.clock = this.options.nanoClock();
        this.maxWaitNanos = this.options.maxWait().toNanos();
        this.loader = new SegmentLoader(lock, allocator, bizTag, this.options.executor(),
                this.options.prefetchThreshold());
        this.sizer = new LoadSizer(this.options);
    }

    /** A generator with default options. */
    public SegmentIdGenerator(SegmentAllocator allocator, String bizTag) {
        this(allocator, bizTag, SegmentGeneratorOptions.defaults());
    }

    public String bizTag() {
        return bizTag;
    }

    public SegmentGeneratorOptions options() {
        return options;
    }

    /**
     * Loads the first range now, on the calling thread, so the first call need not wait and a misconfigured tag
     * fails at startup. Does nothing when a range is already loaded or loading.
     *
     * @return this generator
     * @throws IdWorkerException what the allocator throws
     */
    public SegmentIdGenerator preload() {
        long load;
        synchronized (lock) {
            if (current != empty || !loader.reserve()) {
                return this;
            }
            load = sizer.initialLoad();
        }
        loader.load(LoadSizer.step(load), LoadSizer.steps(load), null);
        @Nullable RuntimeException failure;
        synchronized (lock) {
            failure = loader.nextSegment() == null && current == empty ? loader.lastFailure() : null;
        }
        if (failure != null) {
            throw failure;
        }
        return this;
    }

    @Override
    public long nextId() {
        SegmentBuffer b = current;
        // read before the add: the range sits on another cache line than the counter, so these loads overlap
        // with the add instead of waiting behind it
        long first = b.first;
        long size = b.size;
        long mask = b.checkMask;
        long i = (long) SegmentBuffer.USED.getAndAdd(b, 1L);
        if (i < size && (i & mask) != 0) {
            return first + i;
        }
        return nextIdAtCheckpoint(b, i);
    }

    /** The index is past the range or a multiple of the check interval: maybe prefetch, maybe switch. */
    private long nextIdAtCheckpoint(SegmentBuffer b, long i) {
        if (i < b.size) {
            if (i >= b.prefetchAt) {
                maybePrefetch(b);
            }
            return b.first + i;
        }
        return nextIdSlow(b);
    }

    private long nextIdSlow(SegmentBuffer b) {
        long deadline = System.nanoTime() + maxWaitNanos;
        boolean[] waited = {false};
        while (true) {
            b = advance(b, deadline, waited);
            long i = (long) SegmentBuffer.USED.getAndAdd(b, 1L);
            if (i < b.size) {
                if (i >= b.prefetchAt) {
                    maybePrefetch(b);
                }
                return b.first + i;
            }
        }
    }

    @Override
    public long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long[] ids = new long[count];
        int filled = 0;
        SegmentBuffer b = current;
        long deadline = 0;
        boolean[] waited = null;
        while (true) {
            int want = count - filled;
            long i = (long) SegmentBuffer.USED.getAndAdd(b, (long) want);
            if (i < b.size) {
                long take = Math.min(want, b.size - i);
                if (i + take > b.prefetchAt) {
                    maybePrefetch(b);
                }
                long id = b.first + i;
                for (long k = 0; k < take; k++) {
                    ids[filled++] = id++;
                }
                if (filled == count) {
                    return ids;
                }
            }
            if (waited == null) {
                deadline = System.nanoTime() + maxWaitNanos;
                waited = new boolean[] {false};
            }
            b = advance(b, deadline, waited);
        }
    }

    /** Called by the taker of the prefetch index (and, after a failed load, of every check interval's index beyond). */
    private void maybePrefetch(SegmentBuffer b) {
        if (b.prefetchRequested) {
            return;
        }
        synchronized (lock) {
            if (b.prefetchRequested || loader.closed() || current != b) {
                return;
            }
            if (loader.busy()) {
                b.prefetchRequested = true;
                return;
            }
            if (loader.backingOff(System.nanoTime())) {
                return;
            }
            b.prefetchRequested = true;
            loader.start(sizer.loadAfter(b), b);
        }
    }

    /**
     * Returns a buffer other than {@code exhausted} to take numbers from: the one another caller switched to, the
     * prefetched one, or — after waiting at most until {@code deadline} — a freshly loaded one.
     */
    private SegmentBuffer advance(SegmentBuffer exhausted, long deadline, boolean[] waited) {
        synchronized (lock) {
            while (true) {
                if (loader.closed()) {
                    throw new IdWorkerException("The segment generator of tag '" + bizTag + "' is closed");
                }
                SegmentBuffer c = current;
                if (c != exhausted) {
                    return c;
                }
                SegmentBuffer prefetched = loader.takeNext();
                if (prefetched != null) {
                    return activate(prefetched);
                }
                if (!waited[0]) {
                    waited[0] = true;
                    waitedCalls.increment();
                }
                long now = System.nanoTime();
                if (!loader.loading()) {
                    if (!loader.backingOff(now)) {
                        loader.start(sizer.demandLoad(c == empty ? null : c), null);
                        continue;
                    }
                    RuntimeException permanent = loader.permanentFailure();
                    if (permanent != null) {
                        throw permanent;
                    }
                }
                long remaining = deadline - now;
                if (remaining <= 0) {
                    throw new SegmentRefillTimeoutException(bizTag, Duration.ofNanos(maxWaitNanos),
                            "idworker.segment.max-wait", loader.lastFailure());
                }
                long wait = loader.loading() ? remaining : Math.min(remaining, loader.retryNotBefore() - now);
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, Math.max(wait, 1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IdWorkerException("Interrupted while waiting for a range of segment tag '" + bizTag + "'", e);
                }
            }
        }
    }

    /** Makes the prefetched buffer current; under the lock. */
    private SegmentBuffer activate(SegmentBuffer prefetched) {
        long now = clock.getAsLong();
        SegmentBuffer old = current;
        if (old != empty) {
            retiredIssued += Math.min(old.used, old.size);
            sizer.retired(old, now);
        }
        prefetched.activatedNanos = now;
        current = prefetched;
        return prefetched;
    }

    /**
     * How many calls found both buffers empty and had to wait for a range (including the first call after start
     * unless {@link #preload()} ran). A steady caller should see this stay still once warmed up.
     */
    public long waitedCalls() {
        return waitedCalls.sum();
    }

    /** How many ranges this instance has loaded. */
    public long loadedSegments() {
        return loader.loadedSegments();
    }

    /** The range numbers are currently taken from, or {@code null} before the first one. */
    public @Nullable Segment currentSegment() {
        return current.segment;
    }

    /** The step the current load was sized in, 0 before the first one. */
    public int currentStep() {
        return current.step;
    }

    /** How many whole steps the current load holds (1 unless demand asked for more), 0 before the first one. */
    public int currentStepsPerLoad() {
        SegmentBuffer c = current;
        return c.step == 0 ? 0 : (int) (c.size / c.step);
    }

    /**
     * A snapshot of what this generator holds in memory, taken under its lock (held only for reads: no store call
     * ever runs under it), so the counters are consistent with each other and never go back.
     */
    public SegmentStatus status() {
        SegmentBuffer c;
        long used;
        long nextNumber;
        @Nullable Segment prefetched;
        boolean isLoading;
        long loaded;
        long nanos;
        long failed;
        @Nullable RuntimeException failure;
        long failureAt;
        boolean isClosed;
        synchronized (lock) {
            c = current;
            used = Math.min(c.used, c.size);
            nextNumber = c.first + used;
            prefetched = loader.nextSegment();
            isLoading = loader.loading();
            used += retiredIssued;
            loaded = loader.loadedSegments();
            nanos = loader.loadNanos();
            failed = loader.failedLoads();
            failure = loader.lastFailure();
            failureAt = loader.lastFailureAtMillis();
            isClosed = loader.closed();
        }
        // redacted outside the lock: a regex on every probe must not hold up callers switching ranges
        return new SegmentStatus(bizTag, c.segment, nextNumber, prefetched, isLoading,
                c.step, used, loaded, nanos, failed, waitedCalls.sum(),
                failure == null ? null : StoreLocations.redact(failure.toString()),
                failure == null ? null : Instant.ofEpochMilli(failureAt), isClosed);
    }

    /**
     * Whether this generator ever loaded a range: a generator whose only outcome so far is a failure holds
     * nothing worth keeping, so a lookup may drop it (see {@link SegmentIdGenerators}).
     */
    @Override
    public boolean everLoaded() {
        return loader.loadedSegments() > 0;
    }

    /** Stops loading ranges; later calls throw. The rest of the loaded ranges is never handed out. */
    @Override
    public void close() {
        synchronized (lock) {
            retiredIssued += Math.min(current.used, current.size);
            loader.close();
            current = empty;
            lock.notifyAll();
        }
    }

    @Override
    public String toString() {
        return "SegmentIdGenerator[" + bizTag + ", " + current.segment + "]";
    }
}
