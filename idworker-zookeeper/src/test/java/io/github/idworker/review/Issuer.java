package io.github.idworker.review;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerException;

import java.util.Arrays;

/** One thread issuing from a generator for a while, keeping every identifier; refusals are counted. */
final class Issuer extends Thread {

    private final IdGenerator generator;
    private final long millis;
    private long[] ids = new long[1 << 16];
    private int size;
    volatile long refused;
    volatile String lastRefusal;

    Issuer(IdGenerator generator, long millis, String name) {
        super(name);
        this.generator = generator;
        this.millis = millis;
        setDaemon(true);
    }

    @Override
    public void run() {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            try {
                long id = generator.nextId();
                if (size == ids.length) {
                    ids = Arrays.copyOf(ids, size * 2);
                }
                ids[size++] = id;
            } catch (IdWorkerException | IllegalStateException e) {
                refused++;
                lastRefusal = e.toString();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    long[] ids() {
        return Arrays.copyOf(ids, size);
    }

    /** How many identifiers of {@code a} also occur in {@code b} (or twice in the same list). */
    static long common(long[] a, long[] b) {
        long[] all = new long[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        Arrays.sort(all);
        long dup = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                dup++;
            }
        }
        return dup;
    }
}
