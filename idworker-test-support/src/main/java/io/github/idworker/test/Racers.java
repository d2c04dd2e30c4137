package io.github.idworker.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs one task per thread with every thread released at the same instant, so the tasks really race, and returns
 * their results in thread order; a failure fails the whole race with every thread's failure attached, not just
 * the first one's.
 */
public final class Racers {

    private Racers() {
    }

    /**
     * Runs {@code task.apply(i)} on thread {@code i} of {@code threads}, all released together.
     *
     * @param timeout how long the whole race may take
     * @throws AssertionError listing each failed thread's exception, the first one as the cause
     */
    public static <T> List<T> race(int threads, IntFunction<Callable<T>> task, long timeout, TimeUnit unit)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<T> work = task.apply(i);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return work.call();
                }));
            }
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            List<T> results = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    results.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                } catch (TimeoutException e) {
                    failures.add(e);
                }
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " of " + threads + " threads failed: "
                        + failures, failures.get(0));
                failures.stream().skip(1).forEach(error::addSuppressed);
                throw error;
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
