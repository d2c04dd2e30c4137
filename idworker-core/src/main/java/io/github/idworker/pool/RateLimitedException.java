package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

import java.time.Duration;

/**
 * The entity's {@code max-per-second}, counted across all nodes, would be passed by this take; nothing was taken.
 * {@link #getRetryAfter()} says when the next one-second window opens.
 */
public class RateLimitedException extends IdWorkerException {

    private final String entity;
    private final int maxPerSecond;
    private final Duration retryAfter;

    public RateLimitedException(String entity, int requested, int maxPerSecond, Duration retryAfter) {
        super("ID pool '" + entity + "' is rate-limited: " + requested + " more IDs would pass max-per-second "
                + maxPerSecond + " (idworker.pool.entities." + entity + ".max-per-second); retry after "
                + retryAfter.toMillis() + " ms");
        this.entity = entity;
        this.maxPerSecond = maxPerSecond;
        this.retryAfter = retryAfter;
    }

    public String getEntity() {
        return entity;
    }

    public int getMaxPerSecond() {
        return maxPerSecond;
    }

    /** How long until the window that refused this take closes; always positive. */
    public Duration getRetryAfter() {
        return retryAfter;
    }
}
