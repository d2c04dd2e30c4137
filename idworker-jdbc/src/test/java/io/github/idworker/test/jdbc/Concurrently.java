package io.github.idworker.test.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs one task on many threads released together, and fails listing every thread's failure, not just the first. */
final class Concurrently {

    private Concurrently() {
    }

    static <T> List<T> onThreads(int threads, Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return task.call();
                }));
            }
            List<T> results = new ArrayList<>();
            List<String> failures = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    results.add(f.get(120, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    failures.add(e.getCause().toString());
                }
            }
            assertThat(failures).as("threads that failed of " + threads).isEmpty();
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
