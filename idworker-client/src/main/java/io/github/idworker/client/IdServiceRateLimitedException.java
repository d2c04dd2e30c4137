package io.github.idworker.client;

import java.time.Duration;

/**
 * An environment said 429 Too Many Requests (the application's own limit or the entity's max-per-second), and none
 * served; the other environments are listed in the message with their failure or refusal.
 * {@link #getRetryAfter()} is the earliest time any of them said to come back.
 */
public class IdServiceRateLimitedException extends IdServiceException {

    private final Duration retryAfter;

    public IdServiceRateLimitedException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    /**
     * The smallest wait any rate-limited environment asked for: its {@code retryAfterMillis} when the problem
     * document has one, else its {@code Retry-After} header; 1 second when none of them said.
     */
    public Duration getRetryAfter() {
        return retryAfter;
    }
}
