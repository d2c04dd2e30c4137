package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

/**
 * The pool held fewer IDs than asked for (or Redis had just lost it); nothing was taken, and an
 * {@link PoolAlarm.Kind#EMPTY} alarm was raised. The refill runs in the background: retry later, or ask for fewer.
 */
public class PoolEmptyException extends IdWorkerException {

    private final String entity;
    private final long level;
    private final int requested;

    public PoolEmptyException(String entity, long level, int requested, String why) {
        super("ID pool '" + entity + "' holds " + level + " IDs, fewer than the " + requested + " asked for" + why
                + "; nothing was taken and a refill is under way, retry later");
        this.entity = entity;
        this.level = level;
        this.requested = requested;
    }

    public String getEntity() {
        return entity;
    }

    /** IDs left in the pool when the take was refused. */
    public long getLevel() {
        return level;
    }

    public int getRequested() {
        return requested;
    }
}
