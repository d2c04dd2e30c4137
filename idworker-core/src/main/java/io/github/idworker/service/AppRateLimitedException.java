package io.github.idworker.service;

import io.github.idworker.IdWorkerException;

import java.time.Duration;

/**
 * The application's own {@code max-per-second}, counted across every instance sharing Redis, would be passed by
 * this call; nothing was taken. {@link #getRetryAfter()} says when the next one-second window opens.
 */
public class AppRateLimitedException extends IdWorkerException {

    private final int maxPerSecond;
    private final Duration retryAfter;

    public AppRateLimitedException(String appKey, int requested, int maxPerSecond, Duration retryAfter) {
        super("application '" + appKey + "' is rate-limited: " + requested + " more IDs would pass its max-per-second "
                + maxPerSecond + "; retry after " + retryAfter.toMillis() + " ms");
        this.maxPerSecond = maxPerSecond;
        this.retryAfter = retryAfter;
    }

    public int getMaxPerSecond() {
        return maxPerSecond;
    }

    /** How long until the window that refused this call closes; always positive. */
    public Duration getRetryAfter() {
        return retryAfter;
    }
}
