package io.github.idworker.test;

import io.github.idworker.snowflake.MillisClock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test moves it, so lease and fence behaviour is driven without sleeping.
 */
public final class ManualClock implements MillisClock {

    private final AtomicLong now;

    public ManualClock(long startMillis) {
        this.now = new AtomicLong(startMillis);
    }

    /** A clock set to the system clock's current reading. */
    public static ManualClock ofNow() {
        return new ManualClock(System.currentTimeMillis());
    }

    @Override
    public long millis() {
        return now.get();
    }

    public void set(long millis) {
        now.set(millis);
    }

    public void advance(long millis) {
        now.addAndGet(millis);
    }
}
