package io.github.idworker.client;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The local buffer of one entity's IDs. Invariant: every ID fetched is removed from the buffer at most once, by
 * exactly one caller, in the order fetched; an ID leaves the buffer only into a caller's hands or, at
 * {@link #close()}, into nothing. At most one refill of the entity is in flight.
 *
 * <p>Steps of a take of {@code n} IDs, under the buffer's lock:
 * <ol>
 *   <li>when the buffer holds {@code n} or more, remove them; when that leaves fewer than the refill threshold, no
 *       refill is in flight and the last one did not fail within its backoff, start one in the background; return
 *       them;</li>
 *   <li>otherwise count a wait, start a refill unless one is in flight, and wait for it to end, until
 *       {@code maxWait} after the call began at most;</li>
 *   <li>when it ended with IDs (and other callers left enough), go to step 1; when other callers took them, start
 *       another; when it failed (or could not even start: no thread for it), throw its failure; when
 *       {@code maxWait} passed, throw {@link IdServiceUnavailableException}.</li>
 * </ol>
 * A refill fetches one batch on the executor, then appends it and wakes every waiter. After a failed refill, takes
 * start no background refill for a backoff — the retry-after of a 429, else {@code openDuration} — so that a
 * rate-limited or refusing service is not asked again on every take while IDs are left; a caller who finds too few
 * IDs still starts one at once (step 2), and gets the answer.
 */
final class EntityBuffer {

    private static final Logger log = LoggerFactory.getLogger(IdServiceClient.class);

    private final String entity;
    private final int batchSize;
    private final int refillThreshold;
    private final long maxWaitNanos;
    private final long failureBackoffNanos;
    private final FailoverFetcher fetcher;
    private final Executor executor;
    private final Supplier<List<EndpointStats>> endpoints;
    final Counters counters = new Counters();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition refillEnded = lock.newCondition();
    /** Fetched batches in order; the first is consumed from {@link #head}. */
    private final ArrayDeque<long[]> batches = new ArrayDeque<>();
    private int head;
    private long size;
    private boolean refilling;
    /** Number of the latest refill started; the one in flight when {@link #refilling}. */
    private long refillSeq;
    private long lastEndedSeq;
    private @Nullable RuntimeException lastFailure;
    private boolean failing;
    /** While {@link #failing}: no background refill before this {@code nanoTime}. */
    private long backoffUntil;
    private boolean closed;

    /**
     * @param failureBackoffNanos how long takes start no background refill after a failed one (but a 429's
     *        retry-after)
     */
    EntityBuffer(String entity, int batchSize, int refillThreshold, long maxWaitNanos, long failureBackoffNanos,
                 FailoverFetcher fetcher, Executor executor, Supplier<List<EndpointStats>> endpoints) {
        this.entity = entity;
        this.batchSize = batchSize;
        this.refillThreshold = refillThreshold;
        this.maxWaitNanos = maxWaitNanos;
        this.failureBackoffNanos = failureBackoffNanos;
        this.fetcher = fetcher;
        this.executor = executor;
        this.endpoints = endpoints;
    }

    long nextId() {
        counters.calls.increment();
        long id;
        lock.lock();
        try {
            awaitAtLeast(1);
            long[] first = batches.peekFirst();
            id = first[head++];
            if (head == first.length) {
                batches.pollFirst();
                head = 0;
            }
            size--;
            afterTake();
        } finally {
            lock.unlock();
        }
        counters.idsServed.increment();
        return id;
    }

    long[] nextIds(int count) {
        counters.calls.increment();
        long[] ids = new long[count];
        lock.lock();
        try {
            awaitAtLeast(count);
            int filled = 0;
            while (filled < count) {
                long[] first = batches.peekFirst();
                int n = Math.min(count - filled, first.length - head);
                System.arraycopy(first, head, ids, filled, n);
                filled += n;
                head += n;
                if (head == first.length) {
                    batches.pollFirst();
                    head = 0;
                }
            }
            size -= count;
            afterTake();
        } finally {
            lock.unlock();
        }
        counters.idsServed.add(count);
        return ids;
    }

    /** Returns with the lock held and at least {@code count} IDs buffered, or throws having taken nothing. */
    private void awaitAtLeast(int count) {
        if (size >= count && !closed) {
            return;
        }
        counters.waits.increment();
        long deadline = System.nanoTime() + maxWaitNanos;
        while (true) {
            if (closed) {
                throw closedException();
            }
            if (size >= count) {
                return;
            }
            if (!refilling) {
                startRefill();
            }
            long awaited = refillSeq;
            while (refilling && refillSeq == awaited && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IdServiceUnavailableException("entity '" + entity + "': no " + count + " IDs within "
                            + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms (maxWait); a refill is still running; "
                            + "environments: " + endpoints.get());
                }
                try {
                    refillEnded.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IdServiceException("entity '" + entity + "': interrupted while waiting for IDs", e);
                }
            }
            // the refill this caller waited for failed: its failure is the answer, not another round of waiting
            if (!closed && size < count && lastEndedSeq == awaited && lastFailure != null) {
                throw lastFailure;
            }
        }
    }

    private void afterTake() {
        if (size < refillThreshold && !refilling && !(failing && System.nanoTime() - backoffUntil < 0)) {
            startRefill();
        }
    }

    /**
     * Lock held. When the executor cannot run the refill — it rejects the task, or throws an {@link Error} such as
     * {@code OutOfMemoryError: unable to create native thread} — the refill ends at once as failed: the flag is
     * cleared (or every later take would wait for a refill that never runs), a caller waiting for it throws an
     * {@link IdServiceException} with the cause, and the failure backoff applies as after any failed refill. A
     * take that started it in the background keeps its IDs.
     */
    private void startRefill() {
        refilling = true;
        long seq = ++refillSeq;
        try {
            executor.execute(() -> refill(seq));
        } catch (Throwable e) {
            RuntimeException failure = closed ? closedException()
                    : new IdServiceException("entity '" + entity + "': could not start a refill: " + e, e);
            ended(seq, null, failure);
        }
    }

    private void refill(long seq) {
        long[] ids = null;
        RuntimeException failure = null;
        Error error = null;
        try {
            ids = fetcher.fetch(entity, batchSize, counters);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            error = e;
            failure = new IdServiceException("entity '" + entity + "': refill failed", e);
        } finally {
            ended(seq, ids, failure);
        }
        if (error != null) {
            throw error;
        }
    }

    private void ended(long seq, long @Nullable [] ids, @Nullable RuntimeException failure) {
        boolean wasFailing;
        long left;
        lock.lock();
        try {
            refilling = false;
            lastEndedSeq = seq;
            lastFailure = failure;
            if (ids != null && !closed) {
                batches.addLast(ids);
                size += ids.length;
            }
            wasFailing = failing;
            failing = failure != null;
            if (failing) {
                backoffUntil = System.nanoTime() + (failure instanceof IdServiceRateLimitedException limited
                        ? limited.getRetryAfter().toNanos() : failureBackoffNanos);
            }
            left = size;
            refillEnded.signalAll();
        } finally {
            lock.unlock();
        }
        // one WARN when refills start failing and one INFO when they work again, not a line per attempt
        if (failure != null && !wasFailing) {
            log.warn("Refill of entity '{}' failed, {} IDs left in the buffer: {}", entity, left, failure.getMessage());
        } else if (failure != null) {
            log.debug("Refill of entity '{}' failed again: {}", entity, failure.getMessage());
        } else if (wasFailing) {
            log.info("Refill of entity '{}' works again", entity);
        }
    }

    long buffered() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the buffered IDs and wakes every waiter, who then throws. A refill in flight appends nothing. */
    void close() {
        lock.lock();
        try {
            closed = true;
            batches.clear();
            size = 0;
            head = 0;
            refillEnded.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("IdServiceClient is closed (entity '" + entity + "')");
    }
}
