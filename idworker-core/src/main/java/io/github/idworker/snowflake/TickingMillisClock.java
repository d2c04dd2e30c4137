package io.github.idworker.snowflake;

import java.util.concurrent.locks.LockSupport;

/**
 * A clock read from a field that one daemon thread refreshes from the system clock about every
 * {@value #TICK_MICROS} microseconds.
 *
 * <p>Reading it costs a volatile load instead of a system call (about 25 ns here), which is what lets a
 * worker issue an identifier in a few nanoseconds. It may lag the system clock by about a tick, and it
 * steps backwards whenever the system clock does, so workers keep their backwards checks. Uniqueness does
 * not depend on it: a worker's timestamps come from its own state and its lease.
 */
public final class TickingMillisClock implements MillisClock {

    static final long TICK_MICROS = 500;
    private static volatile TickingMillisClock shared;

    private volatile long now = System.currentTimeMillis();

    private TickingMillisClock() {
        Thread ticker = new Thread(this::tick, "idworker-clock-ticker");
        ticker.setDaemon(true);
        ticker.start();
    }

    /** The one ticking clock of this JVM; its thread starts on first use. */
    public static TickingMillisClock shared() {
        TickingMillisClock clock = shared;
        if (clock == null) {
            synchronized (TickingMillisClock.class) {
                clock = shared;
                if (clock == null) {
                    clock = new TickingMillisClock();
                    shared = clock;
                }
            }
        }
        return clock;
    }

    private void tick() {
        while (true) {
            now = System.currentTimeMillis();
            LockSupport.parkNanos(TICK_MICROS * 1_000);
        }
    }

    @Override
    public long millis() {
        return now;
    }
}
