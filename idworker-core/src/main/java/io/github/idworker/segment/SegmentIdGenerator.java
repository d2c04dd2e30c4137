package io.github.idworker.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
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
 * — the unused rest of the old ranges is skipped, at most two ranges of {@code maxStep}. Numbers of different
 * instances interleave; for one order across processes use the Redis generator.
 *
 * <p>Steps:
 * <ol>
 *   <li><b>Hot path.</b> The current segment is an immutable range plus a counter (one atomic add) of numbers
 *       taken. {@code nextId()} reads the current buffer (one volatile read), takes index {@code i} with
 *       {@code getAndIncrement} and returns {@code first + i} when {@code i} lies in the range. No lock.
 *       {@code nextIds(n)} takes {@code n} indexes with one {@code getAndAdd}, then the rest from the next
 *       segment when the current one ends inside the batch.</li>
 *   <li><b>Prefetch.</b> The caller that takes index {@code ⌊size × prefetchThreshold⌋} (default 20 % of the
 *       segment) submits the load of the next segment to a small executor; at most one load per generator is in
 *       flight and at most one segment waits in the second buffer. Loading at 20 % leaves 80 % of the segment's
 *       lifetime for one database round trip; loading earlier only holds the next range longer, which costs
 *       nothing but numbers skipped on restart. If the load fails, every 1024th later index retries it, at most
 *       every 50 ms.</li>
 *   <li><b>Step.</b> At each prefetch the demand is measured as the numbers consumed over the last complete
 *       segment plus the consumed part of the current one, divided by the time they took. The next step is what
 *       that demand consumes in {@code targetLifetime} (default 15 minutes), clamped to
 *       {@code [minStep, maxStep]} and to at least half the current step: a surge gets a segment its size at
 *       once, a lull shrinks segments by at most half per refill. When a caller had to wait because both buffers
 *       were empty, the step doubles.</li>
 *   <li><b>Switch.</b> A caller that finds the current segment used up takes the lock, makes the prefetched
 *       segment current and retries. Only when no segment is prefetched does it wait (a "waited call",
 *       {@link #waitedCalls()}): it starts a load unless one is in flight and waits for it, at most
 *       {@code maxWait} per call, then gets {@link SegmentRefillTimeoutException} carrying the last store
 *       failure. An unknown tag or an exhausted one fails at once with the allocator's exception.</li>
 *   <li><b>Checks.</b> A range that does not lie above the previous one of this instance is discarded with
 *       {@link StaleSegmentException}: the store went back.</li>
 * </ol>
 * Thread-safe. {@link #close()} stops loading; later calls fail.
 */
public class SegmentIdGenerator implements IdGenerator, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SegmentIdGenerator.class);
    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long PREFETCH_RETRY_MASK = 1023;

    private final SegmentAllocator allocator;
    private final String bizTag;
    private final SegmentGeneratorOptions options;
    private final Executor executor;
    private final LongSupplier clock;
    private final long maxWaitNanos;
    private final long targetLifetimeNanos;
    private final Buffer empty = new Buffer(null, 0.5);

    /** The segment numbers are taken from; replaced only under {@link #lock}. */
    private volatile Buffer current = empty;

    private final Object lock = new Object();
    // guarded by lock
    private Buffer next;
    private boolean loading;
    private RuntimeException lastFailure;
    private long retryNotBefore;
    private boolean closed;
    private Buffer previous;
    private long previousLifetimeNanos;
    private long highestLoaded = Long.MIN_VALUE;

    private final LongAdder waitedCalls = new LongAdder();
    private final AtomicLong loadedSegments = new AtomicLong();

    /** One range and the counter of numbers taken from it. */
    private static final VarHandle USED;

    static {
        try {
            USED = MethodHandles.lookup().findVarHandle(Buffer.class, "used", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final class Buffer {
        final Segment segment;
        final long first;
        final long size;
        final long prefetchAt;
        /** Numbers taken from this buffer; a field of the buffer itself, so a take chases no extra pointer. */
        volatile long used;
        /** Set under the lock before the buffer is published as current. */
        long activatedNanos;
        volatile boolean prefetchRequested;

        Buffer(Segment segment, double threshold) {
            this.segment = segment;
            this.first = segment == null ? 0 : segment.firstId();
            this.size = segment == null ? 0 : segment.size();
            this.prefetchAt = segment == null ? Long.MAX_VALUE : Math.min(size - 1, (long) (size * threshold));
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
        load(options.initialStep(), null);
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
        long i = (long) USED.getAndAdd(b, 1L);
        if (i < b.size) {
            if (i >= b.prefetchAt && (i == b.prefetchAt || (i & PREFETCH_RETRY_MASK) == 0)) {
                maybePrefetch(b);
            }
            return b.first + i;
        }
        return nextIdSlow(b);
    }

    private long nextIdSlow(Buffer b) {
        long deadline = clock.getAsLong() + maxWaitNanos;
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
                deadline = clock.getAsLong() + maxWaitNanos;
                waited = new boolean[] {false};
            }
            b = advance(b, deadline, waited);
        }
    }

    /** Called by the taker of the prefetch index (and, after a failed load, of every 1024th index beyond). */
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
            if (lastFailure != null && clock.getAsLong() - retryNotBefore < 0) {
                return;
            }
            b.prefetchRequested = true;
            startLoad(stepAfter(b), b);
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
                long now = clock.getAsLong();
                if (!loading) {
                    if (lastFailure == null || now - retryNotBefore >= 0) {
                        startLoad(demandStep(), null);
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
            previous = old;
            previousLifetimeNanos = now - old.activatedNanos;
        }
        n.activatedNanos = now;
        current = n;
        return n;
    }

    /** The step after {@code trigger}, from the demand measured up to its prefetch; under the lock. */
    private int stepAfter(Buffer trigger) {
        int step = trigger.segment.step();
        long consumed = Math.min(trigger.size, Math.max(1, trigger.used));
        long elapsed = clock.getAsLong() - trigger.activatedNanos;
        if (previous != null) {
            consumed += previous.size;
            elapsed += previousLifetimeNanos;
        }
        double perLifetime = consumed * ((double) targetLifetimeNanos / Math.max(1, elapsed));
        long wanted = (long) Math.min(perLifetime, options.maxStep());
        long floor = Math.max(options.minStep(), step / 2);
        return (int) Math.min(options.maxStep(), Math.max(floor, wanted));
    }

    /** The step of a load a waiting caller asked for; under the lock. */
    private int demandStep() {
        Buffer c = current;
        if (c == empty) {
            return options.initialStep();
        }
        return (int) Math.min(options.maxStep(), Math.max(options.minStep(), 2L * c.segment.step()));
    }

    /** Starts a load of {@code step} numbers; under the lock. */
    private void startLoad(int step, Buffer trigger) {
        loading = true;
        try {
            executor.execute(() -> load(step, trigger));
        } catch (RejectedExecutionException e) {
            finishLoad(null, new IdWorkerException("The segment loader rejected the load of tag '" + bizTag
                    + "'; is its executor shut down?", e), trigger);
        }
    }

    private void load(int step, Buffer trigger) {
        Segment segment = null;
        RuntimeException failure = null;
        try {
            segment = allocator.allocate(bizTag, step);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            finishLoad(null, new IdWorkerException("Loading a range of segment tag '" + bizTag + "' failed", e), trigger);
            throw e;
        }
        finishLoad(segment, failure, trigger);
    }

    private void finishLoad(Segment segment, RuntimeException failure, Buffer trigger) {
        synchronized (lock) {
            loading = false;
            if (failure == null && segment != null && segment.firstId() <= highestLoaded) {
                failure = new StaleSegmentException(bizTag, segment, highestLoaded, "this generator's previous range");
            }
            if (failure == null && segment != null && !closed) {
                highestLoaded = segment.lastId();
                next = new Buffer(segment, options.prefetchThreshold());
                lastFailure = null;
                loadedSegments.incrementAndGet();
            } else if (failure != null) {
                lastFailure = failure;
                retryNotBefore = clock.getAsLong() + RETRY_BACKOFF_NANOS;
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

    /** The step of the current range, 0 before the first one. */
    public int currentStep() {
        Segment s = current.segment;
        return s == null ? 0 : s.step();
    }

    /** Stops loading ranges; later calls throw. The rest of the loaded ranges is never handed out. */
    @Override
    public void close() {
        synchronized (lock) {
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
