package io.github.idworker;

import java.time.Instant;

/**
 * Remembers whether the last call of one generator failed, with what and when, so health checks and operators
 * can read it from memory instead of asking the store. A success costs one volatile read (a write only when it
 * ends a failure), so it may sit on a path that runs once per call. Thread-safe; the view is eventually
 * consistent, which is all a probe needs.
 */
public final class LastFailure {

    private volatile boolean failing;
    private volatile String failure;
    private volatile long atMillis;

    /** Notes a call that succeeded: the generator is no longer failing, the last failure stays readable. */
    public void succeeded() {
        if (failing) {
            failing = false;
        }
    }

    /** Notes a call that failed with {@code e}. */
    public void failed(Throwable e) {
        // redacted once here, so no reader (endpoint, health, log) can show a store's credentials
        failure = StoreLocations.redact(e.toString());
        atMillis = System.currentTimeMillis();
        failing = true;
    }

    /** Whether the last call failed. */
    public boolean failing() {
        return failing;
    }

    /** The last failure, as text, or {@code null} when none happened. */
    public String failure() {
        return failure;
    }

    /** When the last failure happened, or {@code null} when none happened. */
    public Instant at() {
        return failure == null ? null : Instant.ofEpochMilli(atMillis);
    }
}
