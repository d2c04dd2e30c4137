package io.github.idworker.pool;

import io.github.idworker.CenterUnavailableException;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * A take did not end within the pool's bounded wait ({@code idworker.pool.max-wait}): Redis did not answer in
 * time, or the pool could not be checked against its table. Nothing was handed out. A take that Redis runs after
 * its caller gave up removes its IDs from the pool for good: they are lost (a gap), never handed out again. A kind
 * of {@link CenterUnavailableException}: retry later.
 */
public class PoolTimeoutException extends CenterUnavailableException {

    private final String entity;
    private final Duration waited;

    /**
     * @param entity the pool's entity key
     * @param waited the bound that ran out
     * @param property the setting that names the bound
     * @param what what did not answer in time, e.g. {@code "Redis did not answer the take"}
     * @param cause the last failure seen, if any (not part of the message: it may name hosts)
     */
    public PoolTimeoutException(String entity, Duration waited, String property, String what,
                                @Nullable Throwable cause) {
        super("A take from ID pool '" + entity + "' did not end within " + waited.toMillis() + " ms (" + property
                + "): " + what + ". Nothing was handed out; IDs a late take may still remove are lost, never handed "
                + "out again. Retry later, check Redis and the pool table, or raise " + property + ".", cause);
        this.entity = entity;
        this.waited = waited;
    }

    public String getEntity() {
        return entity;
    }

    /** The bound that ran out. */
    public Duration getWaited() {
        return waited;
    }
}
