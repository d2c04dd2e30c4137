package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

/** A take asked for more IDs than the entity's {@code max-per-request}; nothing was taken. */
public class PoolRequestTooLargeException extends IdWorkerException {

    private final String entity;
    private final int requested;
    private final int maxPerRequest;

    public PoolRequestTooLargeException(String entity, int requested, int maxPerRequest) {
        super("count " + requested + " is above max-per-request " + maxPerRequest + " of ID pool '" + entity
                + "' (idworker.pool.entities." + entity + ".max-per-request); ask for 1 to " + maxPerRequest);
        this.entity = entity;
        this.requested = requested;
        this.maxPerRequest = maxPerRequest;
    }

    public String getEntity() {
        return entity;
    }

    public int getRequested() {
        return requested;
    }

    public int getMaxPerRequest() {
        return maxPerRequest;
    }
}
