package io.github.idworker.client;

import java.util.function.LongSupplier;

/**
 * The circuit breaker of one environment. Guarantees: while OPEN and before {@code openDuration} has passed since
 * it opened, {@link #tryAcquire()} refuses every request; afterwards exactly one caller gets a trial (HALF_OPEN)
 * and everyone else is refused until that trial ends. Thread-safe; every method is short and holds the monitor.
 *
 * <p>Transitions:
 * <ul>
 *   <li>CLOSED → OPEN on the {@code failureThreshold}-th consecutive failure;</li>
 *   <li>OPEN → HALF_OPEN when a request asks after the open period; one trial;</li>
 *   <li>HALF_OPEN → CLOSED when the trial is answered, → OPEN for another period when it fails, → OPEN with the
 *       period already over when it is abandoned (an interrupted caller), so the next request may try;</li>
 *   <li>any state → CLOSED on an answer (a late one from a request sent while CLOSED included).</li>
 * </ul>
 */
final class CircuitBreaker {

    private final int failureThreshold;
    private final long openNanos;
    private final LongSupplier nanoClock;

    private CircuitState state = CircuitState.CLOSED;
    private int consecutiveFailures;
    private long openUntil;

    CircuitBreaker(int failureThreshold, long openNanos, LongSupplier nanoClock) {
        this.failureThreshold = failureThreshold;
        this.openNanos = openNanos;
        this.nanoClock = nanoClock;
    }

    /** Whether a request may go to the environment now; true in HALF_OPEN makes the caller the trial. */
    synchronized boolean tryAcquire() {
        switch (state) {
            case CLOSED:
                return true;
            case OPEN:
                // subtraction, not comparison: nanoTime may wrap
                if (nanoClock.getAsLong() - openUntil >= 0) {
                    state = CircuitState.HALF_OPEN;
                    return true;
                }
                return false;
            default:
                return false;
        }
    }

    /** The environment answered. @return the state before */
    synchronized CircuitState onAnswer() {
        CircuitState before = state;
        state = CircuitState.CLOSED;
        consecutiveFailures = 0;
        return before;
    }

    /** The environment failed. @return whether this failure opened the circuit */
    synchronized boolean onFailure() {
        consecutiveFailures++;
        if (state == CircuitState.HALF_OPEN
                || state == CircuitState.CLOSED && consecutiveFailures >= failureThreshold) {
            state = CircuitState.OPEN;
            openUntil = nanoClock.getAsLong() + openNanos;
            return true;
        }
        // a late failure of a request sent while CLOSED leaves an OPEN period as it is
        return false;
    }

    /** A request ended without telling anything about the environment (the caller was interrupted). */
    synchronized void onAbandoned() {
        if (state == CircuitState.HALF_OPEN) {
            state = CircuitState.OPEN;
            openUntil = nanoClock.getAsLong();
        }
    }

    synchronized CircuitState state() {
        return state;
    }

    synchronized int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** Milliseconds until an OPEN circuit allows a trial, 0 when it does now; 0 in other states. */
    synchronized long millisUntilTrial() {
        if (state != CircuitState.OPEN) {
            return 0;
        }
        long left = openUntil - nanoClock.getAsLong();
        return left <= 0 ? 0 : (left + 999_999) / 1_000_000;
    }
}
