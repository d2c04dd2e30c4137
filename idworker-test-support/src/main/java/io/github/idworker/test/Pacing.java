package io.github.idworker.test;

import java.util.concurrent.locks.LockSupport;

/**
 * Waits of the tests that hold a steady rate: {@link #parkUntil} returns only once its time has come.
 * {@link LockSupport#parkNanos} may return early (a permit left by a connection pool's own wait, a spurious wake-up);
 * a pacing loop that parks once then calls early, and a pool test's takers passed the rate they were to hold.
 */
public final class Pacing {

    private Pacing() {
    }

    /** Parks the calling thread until {@link System#nanoTime()} reaches {@code dueNanos}; returns at once if it has. */
    public static void parkUntil(long dueNanos) {
        for (long wait = dueNanos - System.nanoTime(); wait > 0; wait = dueNanos - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
    }
}
