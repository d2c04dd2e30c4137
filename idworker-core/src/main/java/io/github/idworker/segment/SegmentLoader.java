package io.github.idworker.segment;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the ranges of one {@link SegmentIdGenerator} from its {@link SegmentAllocator}, off the callers' threads.
 *
 * <p>Guarantees: at most one load is in flight and at most one loaded range waits to become current; a range is
 * offered only when it lies above every range this loader loaded before (else {@link StaleSegmentException}); after
 * a failure no load starts for 50 ms; after {@link #close()} no range is offered. No store call runs under the lock.
 *
 * <p>Steps of a load:
 * <ol>
 *   <li>{@link #start} marks a load in flight and hands it to the executor (the shared daemon pool unless one is
 *       configured); a rejected hand-off is a failed load.</li>
 *   <li>The load asks the allocator for {@code step × steps} numbers, outside the lock.</li>
 *   <li>Under the lock: a range that does not lie above the previous one is a {@link StaleSegmentException}; a
 *       good range becomes the waiting one; a failure is kept for callers and backs the next load off. Waiting
 *       callers are woken either way.</li>
 *   <li>Outside the lock: the outcome is logged, a failure that retrying cannot fix at DEBUG only.</li>
 * </ol>
 *
 * <p>Every field is guarded by the generator's lock, which this loader shares, except the count of loaded ranges.
 */
final class SegmentLoader {

    // the generator's category: operators set the level of the segment generator and expect its loads in it
    private static final Logger log = LoggerFactory.getLogger(SegmentIdGenerator.class);
    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Object lock;
    private final SegmentAllocator allocator;
    private final String bizTag;
    private final Executor executor;
    private final double prefetchThreshold;

    private @Nullable SegmentBuffer next;
    private boolean loading;
    private @Nullable RuntimeException lastFailure;
    /** Wall-clock time of {@link #lastFailure}, for operators. */
    private long lastFailureAtMillis;
    private long retryNotBefore;
    private boolean closed;
    private long highestLoaded = Long.MIN_VALUE;
    private long loadNanos;
    private long failedLoads;
    private final AtomicLong loadedSegments = new AtomicLong();

    /**
     * @param lock the generator's lock, which guards this loader's state too
     * @param executor where loads run, or {@code null} for the shared daemon pool
     */
    SegmentLoader(Object lock, SegmentAllocator allocator, String bizTag, @Nullable Executor executor,
                  double prefetchThreshold) {
        this.lock = lock;
        this.allocator = allocator;
        this.bizTag = bizTag;
        this.executor = executor != null ? executor : SharedLoader.EXECUTOR;
        this.prefetchThreshold = prefetchThreshold;
    }

    /** Whether a range waits or a load is in flight; under the lock. */
    boolean busy() {
        return next != null || loading;
    }

    /** Whether a load is in flight; under the lock. */
    boolean loading() {
        return loading;
    }

    /** Whether the last load failed less than the back-off ago, so none may start yet; under the lock. */
    boolean backingOff(long nowNanos) {
        return lastFailure != null && nowNanos - retryNotBefore < 0;
    }

    /** When the next load may start after a failure ({@link System#nanoTime()}); under the lock. */
    long retryNotBefore() {
        return retryNotBefore;
    }

    /** The failure of the last load, {@code null} when it succeeded; under the lock. */
    @Nullable RuntimeException lastFailure() {
        return lastFailure;
    }

    /** The last load's failure when retrying cannot fix it (an unknown or exhausted tag, ...); under the lock. */
    @Nullable RuntimeException permanentFailure() {
        RuntimeException failure = lastFailure;
        return failure != null && isPermanent(failure) ? failure : null;
    }

    long lastFailureAtMillis() {
        return lastFailureAtMillis;
    }

    long loadNanos() {
        return loadNanos;
    }

    long failedLoads() {
        return failedLoads;
    }

    boolean closed() {
        return closed;
    }

    /** How many ranges were loaded; any thread. */
    long loadedSegments() {
        return loadedSegments.get();
    }

    /** The range waiting to become current, or {@code null}; under the lock. */
    @Nullable Segment nextSegment() {
        SegmentBuffer n = next;
        return n == null ? null : n.segment;
    }

    /** Takes the range waiting to become current, or {@code null} when none waits; under the lock. */
    @Nullable SegmentBuffer takeNext() {
        SegmentBuffer n = next;
        next = null;
        return n;
    }

    /** Stops offering ranges and drops the waiting one; under the lock. */
    void close() {
        closed = true;
        next = null;
    }

    /**
     * Marks a load in flight for a caller that runs it itself ({@link #load}) unless the loader is closed or a
     * range waits or loads; under the lock.
     *
     * @return whether the caller now owns the load
     */
    boolean reserve() {
        if (closed || next != null || loading) {
            return false;
        }
        loading = true;
        return true;
    }

    /** Starts a load (see {@link LoadSizer#load}) on the executor; under the lock. */
    void start(long load, @Nullable SegmentBuffer trigger) {
        int step = LoadSizer.step(load);
        int steps = LoadSizer.steps(load);
        loading = true;
        try {
            executor.execute(() -> load(step, steps, trigger));
        } catch (RejectedExecutionException e) {
            finish(null, new IdWorkerException("The segment loader rejected the load of tag '" + bizTag
                    + "'; is its executor shut down?", e), step, trigger, 0);
        }
    }

    /** Loads {@code steps} whole steps of {@code step} numbers on the calling thread; never under the lock. */
    void load(int step, int steps, @Nullable SegmentBuffer trigger) {
        @Nullable Segment segment = null;
        @Nullable RuntimeException failure = null;
        long started = System.nanoTime();
        try {
            segment = allocator.allocate(bizTag, step * steps);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            finish(null, new IdWorkerException("Loading a range of segment tag '" + bizTag + "' failed", e), step,
                    trigger, System.nanoTime() - started);
            throw e;
        }
        finish(segment, failure, step, trigger, System.nanoTime() - started);
    }

    private void finish(@Nullable Segment segment, @Nullable RuntimeException failure, int step,
                        @Nullable SegmentBuffer trigger, long tookNanos) {
        synchronized (lock) {
            loading = false;
            loadNanos += tookNanos;
            if (failure == null && segment != null && segment.firstId() <= highestLoaded) {
                failure = new StaleSegmentException(bizTag, segment, highestLoaded, "this generator's previous range");
            }
            if (failure == null && segment != null && !closed) {
                highestLoaded = segment.lastId();
                next = new SegmentBuffer(segment, step, prefetchThreshold);
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
