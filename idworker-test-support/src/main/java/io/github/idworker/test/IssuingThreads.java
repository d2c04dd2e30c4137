package io.github.idworker.test;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;

/**
 * Many threads calling {@link IdGenerator#nextId()} at once until told to stop, each keeping the identifiers a
 * filter selects, so a test can drive a generator through switches while it is under load and then look for a
 * repeated identifier. Failures of type {@link IdWorkerException} (a fenced worker) are counted, not fatal.
 */
public final class IssuingThreads implements AutoCloseable {

    private final List<Thread> threads = new ArrayList<>();
    private final List<long[]> kept = new ArrayList<>();
    private final int[] sizes;
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final List<Throwable> unexpected = new ArrayList<>();
    private final CountDownLatch started;
    private volatile boolean stop;

    /**
     * Starts {@code count} threads on {@code generator}.
     *
     * @param keep which identifiers to keep for {@link #keptIds()}; all are counted
     */
    public IssuingThreads(IdGenerator generator, int count, LongPredicate keep) {
        sizes = new int[count];
        started = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            kept.add(new long[1024]);
            int index = i;
            Thread t = new Thread(() -> run(generator, keep, index), "issuer-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            started.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run(IdGenerator generator, LongPredicate keep, int index) {
        started.countDown();
        long[] mine = kept.get(index);
        int size = 0;
        long count = 0;
        try {
            while (!stop) {
                long id;
                try {
                    id = generator.nextId();
                } catch (IdWorkerException fenced) {
                    refused.incrementAndGet();
                    // leave the cores to the worker's keeper, which is what ends the refusals
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                count++;
                if (keep.test(id)) {
                    if (size == mine.length) {
                        mine = Arrays.copyOf(mine, size * 2);
                    }
                    mine[size++] = id;
                }
            }
        } catch (RuntimeException | Error e) {
            synchronized (unexpected) {
                unexpected.add(e);
            }
        } finally {
            synchronized (kept) {
                kept.set(index, mine);
                sizes[index] = size;
            }
            issued.addAndGet(count);
        }
    }

    /**
     * Stops every thread and waits for them. A thread waiting for a fenced worker is interrupted out of that wait
     * (the call fails, and counts as refused) instead of waiting out the worker's fence-wait.
     */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(30_000);
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " did not stop within 30 s: a caller is stuck");
            }
        }
    }

    /** How many identifiers were issued in all (after {@link #close()}). */
    public long issued() {
        return issued.get();
    }

    /** How many calls failed with an {@link IdWorkerException} (after {@link #close()}). */
    public long refused() {
        return refused.get();
    }

    /** Errors other than {@link IdWorkerException} the threads met (after {@link #close()}). */
    public List<Throwable> unexpected() {
        synchronized (unexpected) {
            return List.copyOf(unexpected);
        }
    }

    /** Every kept identifier of every thread, sorted (after {@link #close()}). */
    public long[] keptIds() {
        synchronized (kept) {
            int total = Arrays.stream(sizes).sum();
            long[] all = new long[total];
            int at = 0;
            for (int i = 0; i < sizes.length; i++) {
                System.arraycopy(kept.get(i), 0, all, at, sizes[i]);
                at += sizes[i];
            }
            Arrays.sort(all);
            return all;
        }
    }

    /** The identifiers that occur more than once in a sorted array, each listed once. */
    public static List<Long> repeated(long[] sorted) {
        List<Long> repeats = new ArrayList<>();
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1] && (repeats.isEmpty() || repeats.get(repeats.size() - 1) != sorted[i])) {
                repeats.add(sorted[i]);
            }
        }
        return repeats;
    }
}
