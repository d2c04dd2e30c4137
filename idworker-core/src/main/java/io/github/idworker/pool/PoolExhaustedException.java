package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

/** The entity's offsets reached the largest ID a {@code long} holds in this environment; nothing was reserved. */
public class PoolExhaustedException extends IdWorkerException {

    private final String entity;

    public PoolExhaustedException(String entity, long currentOffset, long maxOffset) {
        super("ID pool entity '" + entity + "' is exhausted: current offset " + currentOffset + " leaves no chunk below "
                + "the largest offset " + maxOffset + " whose ID fits a long in this environment");
        this.entity = entity;
    }

    public String getEntity() {
        return entity;
    }
}
