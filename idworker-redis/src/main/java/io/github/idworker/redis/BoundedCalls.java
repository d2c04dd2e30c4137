package io.github.idworker.redis;

import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs a blocking store call (a Redis script, a database lookup) so that its caller stops waiting at a deadline,
 * whatever the client's own socket timeout, retries and reconnects add up to: the one setting that names the
 * caller's wait ({@code max-wait}) bounds it, not the client's configuration.
 *
 * <p>Steps of {@link #call}:
 * <ol>
 *   <li>A deadline already passed: the timeout exception at once, nothing runs.</li>
 *   <li>Otherwise the call takes one of {@value #THREADS} permits, waiting for one until its deadline at most
 *       (a burst of callers against a healthy store queues for a moment rather than fail), and goes to a shared
 *       pool of daemon threads, which grows with the calls in flight (idle threads end after 30 s): a call stuck in
 *       a hung store, abandoned by its caller, holds its thread and permit until the client's own timeout, and must
 *       not hold up anyone else's call beyond that.</li>
 *   <li>The caller parks until the call ends or the deadline passes.</li>
 *   <li>At the deadline the caller marks the call abandoned and gets the timeout exception. An abandoned call that
 *       had not started never runs; one that was running finishes on its thread and its result goes to the
 *       {@code late} consumer (e.g. to release a lock it took), or nowhere.</li>
 * </ol>
 *
 * <p>Why this is safe for issuing paths: a store call abandoned here may still complete in the store later. Every
 * script that issues advances its counter or pops its IDs atomically, so a call whose answer nobody read leaves
 * numbers or IDs taken and never handed out — a gap, never a duplicate. An interrupt does not cut the wait short
 * (the deadline bounds it anyway); the flag is kept.
 *
 * <p>Cost: one hand-off to a pooled thread per call, two context switches (about a tenth of a loopback Redis
 * round trip). The Redis paths that issue come here only when their {@link RedisScriptExecutor} cannot bound the
 * wait itself ({@link RedisScriptExecutor#execute(LuaScript, List, List, long, Supplier)}); {@link #handOffs()}
 * counts the calls handed over.
 */
public final class BoundedCalls {

    /** Most calls in flight at once; each holds its thread at most its client's socket timeout. */
    static final int THREADS = 512;

    /**
     * One permit per call in flight. A caller that finds none waits for one until its own deadline, so a burst of
     * callers against a healthy store queues for a moment instead of failing at once; only a store that holds
     * {@value #THREADS} calls past the deadline turns the rest into timeouts.
     */
    private static final Semaphore SLOTS = new Semaphore(THREADS);

    private static final Logger log = LoggerFactory.getLogger(BoundedCalls.class);
    private static final ThreadPoolExecutor POOL = createPool();
    private static final LongAdder HAND_OFFS = new LongAdder();

    private BoundedCalls() {
    }

    private static ThreadPoolExecutor createPool() {
        AtomicInteger n = new AtomicInteger();
        // SLOTS bounds the calls in flight; the pool itself is unbounded so that a thread still returning from a
        // call whose permit it released never makes a new call rejected
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            // no inherited thread-locals, and the library's own class loader: a pooled thread outlives the first
            // caller, which may be a web application that is later undeployed
            Thread t = new Thread(null, r, "idworker-store-call-" + n.incrementAndGet(), 0, false);
            t.setDaemon(true);
            t.setContextClassLoader(BoundedCalls.class.getClassLoader());
            return t;
        });
    }

    /**
     * Runs {@code work} and returns its result, or throws its exception, or — when {@code deadlineNanos}
     * ({@link System#nanoTime()}) passes first — throws {@code onTimeout}'s exception.
     *
     * @param late gets the result of a call that completed after its caller gave up; {@code null} for none
     */
    public static <T> T call(Supplier<T> work, long deadlineNanos, Supplier<? extends RuntimeException> onTimeout,
                             @Nullable Consumer<? super T> late) {
        if (System.nanoTime() - deadlineNanos >= 0) {
            throw onTimeout.get();
        }
        acquireSlot(deadlineNanos, onTimeout);
        Call<T> call = new Call<>(work, Thread.currentThread(), late);
        HAND_OFFS.increment();
        try {
            POOL.execute(call);
        } catch (RejectedExecutionException e) {
            SLOTS.release();
            throw onTimeout.get();
        }
        return call.await(deadlineNanos, onTimeout);
    }

    /** Waits for a free permit until the deadline; an interrupt does not cut the wait short, the flag is kept. */
    private static void acquireSlot(long deadlineNanos, Supplier<? extends RuntimeException> onTimeout) {
        if (SLOTS.tryAcquire()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw onTimeout.get();
                }
                try {
                    if (SLOTS.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link #call} without a consumer of late results. */
    public static <T> T call(Supplier<T> work, long deadlineNanos, Supplier<? extends RuntimeException> onTimeout) {
        return call(work, deadlineNanos, onTimeout, null);
    }

    /**
     * How many calls this JVM has handed to a pooled thread since it started: for monitoring, and for tests that
     * check a client adapter waits on its own ({@link RedisScriptExecutor}).
     */
    public static long handOffs() {
        return HAND_OFFS.sum();
    }

    /** One call and its hand-over between the pooled thread and the waiting caller. */
    private static final class Call<T> extends AtomicInteger implements Runnable {
        private static final int NEW = 0;
        private static final int RUNNING = 1;
        private static final int DONE = 2;
        private static final int ABANDONED = 3;

        private final Supplier<T> work;
        private final Thread caller;
        private final @Nullable Consumer<? super T> late;
        // published by the write of DONE
        private @Nullable T result;
        private @Nullable Throwable failure;

        Call(Supplier<T> work, Thread caller, @Nullable Consumer<? super T> late) {
            this.work = work;
            this.caller = caller;
            this.late = late;
        }

        @Override
        public void run() {
            try {
                runOnce();
            } finally {
                SLOTS.release();
            }
        }

        private void runOnce() {
            if (!compareAndSet(NEW, RUNNING)) {
                return; // abandoned before it started: it never reaches the store
            }
            T value = null;
            Throwable error = null;
            try {
                value = work.get();
            } catch (RuntimeException | Error e) {
                error = e;
            }
            result = value;
            failure = error;
            if (compareAndSet(RUNNING, DONE)) {
                LockSupport.unpark(caller);
                return;
            }
            // the caller gave up meanwhile
            if (error != null) {
                log.debug("A store call ended after its caller had stopped waiting: {}", error.toString());
            } else if (late != null) {
                try {
                    late.accept(value);
                } catch (RuntimeException e) {
                    log.debug("Handling the late result of a store call failed: {}",
                            StoreLocations.redact(e.toString()));
                }
            }
        }

        T await(long deadlineNanos, Supplier<? extends RuntimeException> onTimeout) {
            boolean interrupted = false;
            try {
                while (true) {
                    if (get() == DONE) {
                        return outcome();
                    }
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        int state = get();
                        if ((state == NEW || state == RUNNING) && compareAndSet(state, ABANDONED)) {
                            throw onTimeout.get();
                        }
                        continue; // it just ended
                    }
                    LockSupport.parkNanos(this, left);
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @SuppressWarnings("NullAway") // with no failure, result holds what work returned, a T
        private T outcome() {
            Throwable f = failure;
            if (f == null) {
                return result;
            }
            if (f instanceof RuntimeException e) {
                throw e;
            }
            throw (Error) f;
        }
    }
}
