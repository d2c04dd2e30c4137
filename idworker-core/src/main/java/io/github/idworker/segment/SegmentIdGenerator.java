package io.github.idworker.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.StoreLocations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

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
 * Thread-safe. {@link #close()} stops loading; later calls fail.
 */
public class SegmentIdGenerator implements StoreBackedGenerator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SegmentIdGenerator.class);
    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Indexes are checked for prefetch at most every this many takes; a power of two. */
    private static final long MAX_CHECK_INTERVAL = 1024;

    private final SegmentAllocator allocator;
    private final String bizTag;
    private final SegmentGeneratorOptions options;
    private final Executor executor;
    private final LongSupplier clock;
    private final long maxWaitNanos;
    private final long targetLifetimeNanos;
    private final long minLoadLifetimeNanos;
    private final Buffer empty = new Buffer(null, 0, 0.5);

    /** The segment numbers are taken from; replaced only under {@link #lock}. */
    private volatile Buffer current = empty;

    private final Object lock = new Object();
    // guarded by lock
    private Buffer next;
    private boolean loading;
    private RuntimeException lastFailure;
    /** Wall-clock time of {@link #lastFailure}, for operators; guarded by lock. */
    private long lastFailureAtMillis;
    private long retryNotBefore;
    private boolean closed;
    private Buffer previous;
    private long previousLifetimeNanos;
    private long highestLoaded = Long.MIN_VALUE;
    /** Numbers handed out from buffers no longer current, counted when they were retired. */
    private long retiredIssued;
    private long loadNanos;
    private long failedLoads;

    private final LongAdder waitedCalls = new LongAdder();
    private final AtomicLong loadedSegments = new AtomicLong();

    private static final VarHandle USED;

    static {
        try {
            USED = MethodHandles.lookup().findVarHandle(BufferCounter.class, "used", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /*
     * A buffer is one range plus the counter of numbers taken from it. The counter is written by every call of
     * every thread; the range is only read. Were they on one cache line, each call on another core would first
     * pull the line in shared state for the reads and then again in exclusive state for the add, and a reader
     * would lose its copy to every writer: two threads measured at about half a bare AtomicLong. So the counter
     * gets a cache line of its own, padded on both sides through the class hierarchy (HotSpot lays out a
     * superclass's fields before a subclass's), 128 bytes as the JDK's @Contended does, since adjacent-line
     * prefetchers pull lines in pairs.
     */

    /** The read-mostly part of a buffer. */
    private abstract static class BufferRange {
        final Segment segment;
        /** The step this load was sized in; the load holds {@code size / step} whole steps. */
        final int step;
        final long first;
        final long size;
        final long prefetchAt;
        /** {@code checkInterval - 1}; {@code prefetchAt} is a multiple of the interval, so one mask test finds it. */
        final long checkMask;
        /** Set under the lock before the buffer is published as current. */
        long activatedNanos;
        volatile boolean prefetchRequested;

        BufferRange(Segment segment, int step, double threshold) {
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

    @SuppressWarnings("unused")
    private abstract static class BufferPadBefore extends BufferRange {
        long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

        BufferPadBefore(Segment segment, int step, double threshold) {
            super(segment, step, threshold);
        }
    }

    private abstract static class BufferCounter extends BufferPadBefore {
        /** Numbers taken from this buffer, through {@link #USED}; may run past {@code size}. */
        volatile long used;

        BufferCounter(Segment segment, int step, double threshold) {
            super(segment, step, threshold);
        }
    }

    @SuppressWarnings("unused")
    private static final class Buffer extends BufferCounter {
        long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;

        Buffer(Segment segment, int step, double threshold) {
            super(segment, step, threshold);
        }
    }

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
        this.allocator = allocator;
        this.bizTag = bizTag;
        this.options = options == null ? SegmentGeneratorOptions.defaults() : options;
        this.executor = this.options.executor() != null ? this.options.executor() : SharedLoader.EXECUTOR;
        this.clock = this.options.nanoClock();
        this.maxWaitNanos = this.options.maxWait().toNanos();
        this.targetLifetimeNanos = this.options.targetLifetime().toNanos();
        this.minLoadLifetimeNanos = this.options.minLoadLifetime().toNanos();
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
        synchronized (lock) {
            if (closed || current != empty || next != null || loading) {
                return this;
            }
            loading = true;
        }
        load(options.initialStep(), 1, null);
        RuntimeException failure;
        synchronized (lock) {
            failure = next == null && current == empty ? lastFailure : null;
        }
        if (failure != null) {
            throw failure;
        }
        return this;
    }

    @Override
    public long nextId() {
        Buffer b = current;
        // read before the add: the range sits on another cache line than the counter, so these loads overlap
        // with the add instead of waiting behind it
        long first = b.first;
        long size = b.size;
        long mask = b.checkMask;
        long i = (long) USED.getAndAdd(b, 1L);
        if (i < size && (i & mask) != 0) {
            return first + i;
        }
        return nextIdAtCheckpoint(b, i);
    }

    /** The index is past the range or a multiple of the check interval: maybe prefetch, maybe switch. */
    private long nextIdAtCheckpoint(Buffer b, long i) {
        if (i < b.size) {
            if (i >= b.prefetchAt) {
                maybePrefetch(b);
            }
            return b.first + i;
        }
        return nextIdSlow(b);
    }

    private long nextIdSlow(Buffer b) {
        long deadline = System.nanoTime() + maxWaitNanos;
        boolean[] waited = {false};
        while (true) {
            b = advance(b, deadline, waited);
            long i = (long) USED.getAndAdd(b, 1L);
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
        Buffer b = current;
        long deadline = 0;
        boolean[] waited = null;
        while (true) {
            int want = count - filled;
            long i = (long) USED.getAndAdd(b, (long) want);
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
    private void maybePrefetch(Buffer b) {
        if (b.prefetchRequested) {
            return;
        }
        synchronized (lock) {
            if (b.prefetchRequested || closed || current != b) {
                return;
            }
            if (next != null || loading) {
                b.prefetchRequested = true;
                return;
            }
            if (lastFailure != null && System.nanoTime() - retryNotBefore < 0) {
                return;
            }
            b.prefetchRequested = true;
            long size = loadAfter(b);
            startLoad(step(size), steps(size), b);
        }
    }

    /**
     * Returns a buffer other than {@code exhausted} to take numbers from: the one another caller switched to, the
     * prefetched one, or — after waiting at most until {@code deadline} — a freshly loaded one.
     */
    private Buffer advance(Buffer exhausted, long deadline, boolean[] waited) {
        synchronized (lock) {
            while (true) {
                if (closed) {
                    throw new IdWorkerException("The segment generator of tag '" + bizTag + "' is closed");
                }
                Buffer c = current;
                if (c != exhausted) {
                    return c;
                }
                if (next != null) {
                    return activateNext();
                }
                if (!waited[0]) {
                    waited[0] = true;
                    waitedCalls.increment();
                }
                long now = System.nanoTime();
                if (!loading) {
                    if (lastFailure == null || now - retryNotBefore >= 0) {
                        long size = demandLoad();
                        startLoad(step(size), steps(size), null);
                        continue;
                    }
                    if (isPermanent(lastFailure)) {
                        throw lastFailure;
                    }
                }
                long remaining = deadline - now;
                if (remaining <= 0) {
                    throw new SegmentRefillTimeoutException(bizTag, Duration.ofNanos(maxWaitNanos),
                            "idworker.segment.max-wait", lastFailure);
                }
                long wait = loading ? remaining : Math.min(remaining, retryNotBefore - now);
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
    private Buffer activateNext() {
        Buffer n = next;
        next = null;
        long now = clock.getAsLong();
        Buffer old = current;
        if (old != empty) {
            retiredIssued += Math.min(old.used, old.size);
            previous = old;
            previousLifetimeNanos = now - old.activatedNanos;
        }
        n.activatedNanos = now;
        current = n;
        return n;
    }

    /*
     * A load is packed into one long: the step in the low 32 bits, the number of whole steps above them. The load
     * asks the allocator for step × steps numbers, which never passes Integer.MAX_VALUE (see maxSteps).
     */
    private static long load(int step, long steps) {
        return (steps << 32) | step;
    }

    private static int step(long load) {
        return (int) load;
    }

    private static int steps(long load) {
        return (int) (load >>> 32);
    }

    /** Most whole steps of {@code step} one load may hold: the option, and what one range of an int can hold. */
    private int maxSteps(int step) {
        return Math.max(1, Math.min(options.maxStepsPerLoad(), Integer.MAX_VALUE / step));
    }

    /**
     * The load after {@code trigger}, from the demand measured up to its prefetch; under the lock. The step
     * follows demand over {@code targetLifetime} within {@code [minStep, maxStep]}; when one such step would last
     * less than {@code minLoadLifetime}, the load reserves as many whole steps as that time's demand consumes,
     * growing by at most four times per load. A lull shrinks either by at most half per load.
     */
    private long loadAfter(Buffer trigger) {
        int step = trigger.step;
        long consumed = Math.min(trigger.size, Math.max(1, trigger.used));
        long elapsed = clock.getAsLong() - trigger.activatedNanos;
        if (previous != null) {
            consumed += previous.size;
            elapsed += previousLifetimeNanos;
        }
        double perNano = consumed / (double) Math.max(1, elapsed);
        long wanted = (long) Math.min(perNano * targetLifetimeNanos, options.maxStep());
        long floor = Math.max(options.minStep(), step / 2);
        int nextStep = (int) Math.min(options.maxStep(), Math.max(floor, wanted));
        double perLoad = Math.min(perNano * minLoadLifetimeNanos, (double) Integer.MAX_VALUE);
        // a demand within 5 % of a whole number of steps takes no further step: the measure is not that exact
        long steps = Math.max((long) Math.ceil(perLoad / nextStep - 0.05), (trigger.size / 2 + nextStep - 1) / nextStep);
        if (previous == null) {
            // the first measure covers a few numbers of the first range only, perhaps one burst of a caller that
            // then idles: not evidence enough to reserve more than a step (a waiting caller still doubles the load)
            steps = 1;
        }
        // grow by at most four times per load: a burst inflates one measure, and what a load reserves beyond
        // demand is skipped on restart; a real surge still reaches a second's demand within a few loads
        steps = Math.min(steps, 4L * Math.max(1, trigger.size / nextStep));
        return load(nextStep, Math.min(maxSteps(nextStep), Math.max(1, steps)));
    }

    /** The load a waiting caller asked for: twice the current one, in a step twice as large where allowed; under the lock. */
    private long demandLoad() {
        Buffer c = current;
        if (c == empty) {
            return load(options.initialStep(), 1);
        }
        int step = (int) Math.min(options.maxStep(), Math.max(options.minStep(), 2L * c.step));
        long steps = (2 * c.size + step - 1) / step;
        return load(step, Math.min(maxSteps(step), Math.max(1, steps)));
    }

    /** Starts a load of {@code steps} whole steps of {@code step} numbers; under the lock. */
    private void startLoad(int step, int steps, Buffer trigger) {
        loading = true;
        try {
            executor.execute(() -> load(step, steps, trigger));
        } catch (RejectedExecutionException e) {
            finishLoad(null, new IdWorkerException("The segment loader rejected the load of tag '" + bizTag
                    + "'; is its executor shut down?", e), step, trigger, 0);
        }
    }

    private void load(int step, int steps, Buffer trigger) {
        Segment segment = null;
        RuntimeException failure = null;
        long started = System.nanoTime();
        try {
            segment = allocator.allocate(bizTag, step * steps);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            finishLoad(null, new IdWorkerException("Loading a range of segment tag '" + bizTag + "' failed", e), step,
                    trigger, System.nanoTime() - started);
            throw e;
        }
        finishLoad(segment, failure, step, trigger, System.nanoTime() - started);
    }

    private void finishLoad(Segment segment, RuntimeException failure, int step, Buffer trigger, long tookNanos) {
        synchronized (lock) {
            loading = false;
            loadNanos += tookNanos;
            if (failure == null && segment != null && segment.firstId() <= highestLoaded) {
                failure = new StaleSegmentException(bizTag, segment, highestLoaded, "this generator's previous range");
            }
            if (failure == null && segment != null && !closed) {
                highestLoaded = segment.lastId();
                next = new Buffer(segment, step, options.prefetchThreshold());
                lastFailure = null;
                loadedSegments.incrementAndGet();
            } else if (failure != null) {
                failedLoads++;
                lastFailure = failure;
                lastFailureAtMillis = System.currentTimeMillis();
                retryNotBefore = System.nanoTime() + RETRY_BACKOFF_NANOS;
                if (trigger != null) {
                    trigger.prefetchRequested = false;
                }
            }
            lock.notifyAll();
        }
        if (failure != null && (closed || isPermanent(failure))) {
            log.debug("Could not load a range of segment tag '{}': {}", bizTag, failure.toString());
        } else if (failure != null) {
            log.warn("Could not load a range of segment tag '{}': {}", bizTag, failure.toString());
        } else if (log.isDebugEnabled() && segment != null) {
            log.debug("Loaded {} for segment tag '{}'", segment, bizTag);
        }
    }

    private static boolean isPermanent(RuntimeException e) {
        return e instanceof UnknownSegmentTagException || e instanceof SegmentExhaustedException
                || e instanceof StaleSegmentException || e instanceof IdWorkerConfigurationException
                || e instanceof IllegalArgumentException;
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
        return loadedSegments.get();
    }

    /** The range numbers are currently taken from, or {@code null} before the first one. */
    public Segment currentSegment() {
        return current.segment;
    }

    /** The step the current load was sized in, 0 before the first one. */
    public int currentStep() {
        return current.step;
    }

    /** How many whole steps the current load holds (1 unless demand asked for more), 0 before the first one. */
    public int currentStepsPerLoad() {
        Buffer c = current;
        return c.step == 0 ? 0 : (int) (c.size / c.step);
    }

    /**
     * A snapshot of what this generator holds in memory, taken under its lock (held only for reads: no store call
     * ever runs under it), so the counters are consistent with each other and never go back.
     */
    public SegmentStatus status() {
        Buffer c;
        long used;
        long nextNumber;
        Segment prefetched;
        boolean isLoading;
        long loaded;
        long nanos;
        long failed;
        RuntimeException failure;
        long failureAt;
        boolean isClosed;
        synchronized (lock) {
            c = current;
            used = Math.min(c.used, c.size);
            nextNumber = c.first + used;
            prefetched = next == null ? null : next.segment;
            isLoading = loading;
            used += retiredIssued;
            loaded = loadedSegments.get();
            nanos = loadNanos;
            failed = failedLoads;
            failure = lastFailure;
            failureAt = lastFailureAtMillis;
            isClosed = closed;
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
        return loadedSegments.get() > 0;
    }

    /** Stops loading ranges; later calls throw. The rest of the loaded ranges is never handed out. */
    @Override
    public void close() {
        synchronized (lock) {
            retiredIssued += Math.min(current.used, current.size);
            closed = true;
            next = null;
            current = empty;
            lock.notifyAll();
        }
    }

    @Override
    public String toString() {
        return "SegmentIdGenerator[" + bizTag + ", " + current.segment + "]";
    }

    /** The small daemon pool that loads ranges when no executor is configured. */
    private static final class SharedLoader {
        static final ThreadPoolExecutor EXECUTOR = create();

        private static ThreadPoolExecutor create() {
            AtomicInteger n = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "idworker-segment-loader-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
