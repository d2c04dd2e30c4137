package io.github.idworker.test;

import io.github.idworker.snowflake.MillisClock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that runs by itself, {@code speed} times as fast as real time from a chosen start, and that a test can
 * step forwards or backwards at any moment. Unlike {@link ManualClock} it needs no thread to move it, so it keeps
 * running while many issuing threads keep the processors busy.
 */
public final class RunningClock implements MillisClock {

    private final long startMillis;
    private final long startNanos = System.nanoTime();
    private final int speed;
    private final AtomicLong offset = new AtomicLong();

    public RunningClock(long startMillis, int speed) {
        if (speed < 1) {
            throw new IllegalArgumentException("speed must be at least 1, was " + speed);
        }
        this.startMillis = startMillis;
        this.speed = speed;
    }

    @Override
    public long millis() {
        return startMillis + (System.nanoTime() - startNanos) / 1_000_000L * speed + offset.get();
    }

    /** Moves the clock by {@code millis}, backwards when negative. */
    public void step(long millis) {
        offset.addAndGet(millis);
    }
}
