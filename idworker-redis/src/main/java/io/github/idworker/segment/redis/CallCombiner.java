package io.github.idworker.segment.redis;

import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Combines concurrent calls of one generator into few store calls (flat combining over a bounded number of calls in
 * flight), handing the numbers of each store call out in arrival order.
 *
 * <p>Invariant: at most {@code maxInFlight} store calls of this combiner are in flight, and a call is only ever
 * served by a store call that starts after the call began. So when one call returns before another begins, the
 * later call is served by a store call that starts after the earlier one's ended, and gets larger numbers: first
 * come, first served holds exactly as without combining. Within one store call the earlier arrival gets the
 * smaller numbers. Calls served by store calls that are in flight at the same time began before either returned,
 * so no order is owed between them (as between two uncombined calls on two connections).
 *
 * <p>Steps of {@link #take(int)}:
 * <ol>
 *   <li>Fast path: when nobody is queued and a slot is free (fewer than {@code maxInFlight} store calls in flight),
 *       take the slot, issue directly (no request object) and release it (step 5). With {@code maxInFlight}
 *       callers or fewer nobody ever queues, so light concurrency pays nothing for combining.</li>
 *   <li>Otherwise append a request to a lock-free queue, then try to take a slot; a thread that does not get one
 *       parks until its request is done, it is woken to try again, or its wait ends.</li>
 *   <li>A slot holder drains queued requests from the head, under a short lock, until they would exceed
 *       {@code maxBatch} numbers (the first one is always taken), marking each {@code PENDING → TAKEN} with a
 *       compare-and-set; a request whose caller gave up ({@code PENDING → ABANDONED}) is dropped.</li>
 *   <li>One store call for the sum; consecutive numbers go to the requests in queue order. A failure fails every
 *       request of the batch with the same exception. The batch's callers are woken.</li>
 *   <li>Release: the slot is freed and the caller at the head of the queue, if any, is woken to take it; it looks
 *       at the queue again after freeing, so a caller that queued while every slot was taken is never left parked
 *       with a slot free.</li>
 * </ol>
 *
 * <p>Bounded waits: a request still {@code PENDING} after {@code maxWait} is abandoned and its caller gets the
 * timeout exception; a taken request is answered by the store call it joined, which waits for the store no
 * longer than the earliest deadline of its batch, so no call waits much beyond its own {@code maxWait} in all. An interrupt ends a pending wait the same way (with the interrupt flag kept); a taken one gets
 * its numbers and keeps the flag.
 */
final class CallCombiner {

    /**
     * Issues {@code count} consecutive numbers in one store call and returns the first, waiting for the store at
     * most until {@code deadline} ({@link System#nanoTime()}): the earliest deadline of the calls it serves.
     */
    @FunctionalInterface
    interface Issuer {
        long issue(int count, long deadline);
    }

    private static final int PENDING = 0;
    private static final int TAKEN = 1;
    private static final int DONE = 2;
    private static final int ABANDONED = 3;

    /** A parked request re-checks the slots this often, whatever wakes it: a missed wake-up costs at most this. */
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Request.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One waiting call; {@code first} and {@code failure} are published by the volatile write of {@code DONE}. */
    private static final class Request {
        final int count;
        final Thread thread;
        /** When the call's {@code maxWait} ends ({@link System#nanoTime()}). */
        final long deadline;
        volatile int state;
        long first;
        @Nullable Throwable failure;

        Request(int count, Thread thread, long deadline) {
            this.count = count;
            this.thread = thread;
            this.deadline = deadline;
        }
    }

    private final Issuer issuer;
    private final int maxBatch;
    private final int maxInFlight;
    private final long maxWaitNanos;
    private final Supplier<RuntimeException> timeout;
    private final Supplier<RuntimeException> interrupted;
    private final ConcurrentLinkedQueue<Request> queue = new ConcurrentLinkedQueue<>();
    /** Guards draining, so that the head a slot holder looks at is the one it removes. */
    private final Object drain = new Object();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder coalesced = new LongAdder();

    /**
     * @param issuer the store call
     * @param maxBatch most numbers one store call may ask for
     * @param maxInFlight most store calls in flight at once, at least 1
     * @param maxWaitNanos longest a call waits before a store call takes it
     * @param timeout the exception of a call that waited {@code maxWaitNanos} without being taken
     * @param interrupted the exception of a call interrupted before it was taken
     */
    CallCombiner(Issuer issuer, int maxBatch, int maxInFlight, long maxWaitNanos, Supplier<RuntimeException> timeout,
                 Supplier<RuntimeException> interrupted) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
        }
        this.issuer = issuer;
        this.maxBatch = maxBatch;
        this.maxInFlight = maxInFlight;
        this.maxWaitNanos = maxWaitNanos;
        this.timeout = timeout;
        this.interrupted = interrupted;
    }

    /** {@code count} consecutive numbers, served in arrival order; returns the first. */
    long take(int count) {
        if (queue.isEmpty() && tryAcquire()) {
            try {
                return issuer.issue(count, System.nanoTime() + maxWaitNanos);
            } finally {
                release();
            }
        }
        return enqueueAndWait(count);
    }

    private boolean tryAcquire() {
        while (true) {
            int n = inFlight.get();
            if (n >= maxInFlight) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private long enqueueAndWait(int count) {
        long deadline = System.nanoTime() + maxWaitNanos;
        Request request = new Request(count, Thread.currentThread(), deadline);
        queue.offer(request);
        boolean wasInterrupted = false;
        try {
            while (true) {
                int state = request.state;
                if (state == DONE) {
                    return result(request);
                }
                // trying for a slot after queueing is what keeps a wake-up from being lost (see release)
                if (state == PENDING && tryAcquire()) {
                    try {
                        combine();
                    } finally {
                        release();
                    }
                    continue;
                }
                if (state == PENDING) {
                    if (Thread.interrupted()) {
                        wasInterrupted = true;
                        if (STATE.compareAndSet(request, PENDING, ABANDONED)) {
                            throw interrupted.get();
                        }
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        if (STATE.compareAndSet(request, PENDING, ABANDONED)) {
                            throw timeout.get();
                        }
                        continue;
                    }
                    LockSupport.parkNanos(this, Math.min(left, PARK_NANOS));
                } else {
                    if (Thread.interrupted()) {
                        wasInterrupted = true;
                    }
                    LockSupport.parkNanos(this, PARK_NANOS);
                }
            }
        } finally {
            if (wasInterrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Serves one batch from the head of the queue; the caller holds a slot. */
    private void combine() {
        List<Request> batch = new ArrayList<>();
        long total = 0;
        long deadline = 0;
        synchronized (drain) {
            Request head;
            while ((head = queue.peek()) != null) {
                if (total > 0 && total + head.count > maxBatch) {
                    break;
                }
                queue.poll();
                if (STATE.compareAndSet(head, PENDING, TAKEN)) {
                    deadline = batch.isEmpty() || head.deadline - deadline < 0 ? head.deadline : deadline;
                    batch.add(head);
                    total += head.count;
                }
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        long first = 0;
        Throwable failure = null;
        try {
            first = issuer.issue((int) total, deadline);
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        if (batch.size() > 1) {
            coalesced.add(batch.size());
        }
        long next = first;
        for (Request r : batch) {
            r.first = next;
            r.failure = failure;
            next += r.count;
            r.state = DONE;
        }
        Thread self = Thread.currentThread();
        for (Request r : batch) {
            if (r.thread != self) {
                LockSupport.unpark(r.thread);
            }
        }
    }

    /** Frees a slot and wakes the caller at the head of the queue to take it. */
    private void release() {
        inFlight.decrementAndGet();
        if (queue.isEmpty()) {
            // the uncombined path: no iterator. A caller queueing from now on tries for the freed slot itself
            return;
        }
        // a caller that queued while every slot was taken may be parked: wake the first one still waiting to try
        // for the freed slot (abandoned requests stay in the queue until a drain drops them)
        for (Request r : queue) {
            if (r.state == PENDING) {
                LockSupport.unpark(r.thread);
                return;
            }
        }
    }

    private static long result(Request request) {
        Throwable failure = request.failure;
        if (failure == null) {
            return request.first;
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        throw (Error) failure;
    }

    /** Calls served by a store call together with at least one other call. */
    long coalescedCalls() {
        return coalesced.sum();
    }

    /** Calls queued and not yet taken by a store call (a snapshot). */
    int queuedCalls() {
        int n = 0;
        for (Request r : queue) {
            if (r.state == PENDING) {
                n++;
            }
        }
        return n;
    }
}
