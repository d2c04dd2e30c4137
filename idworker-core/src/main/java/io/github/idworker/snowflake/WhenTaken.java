package io.github.idworker.snowflake;

/**
 * What a starting worker does when its preferred worker id ({@link WorkerIdPreference}) is held by a live lease of
 * another worker ({@code idworker.worker-id.when-taken}). Either way no two live workers share a worker id.
 */
public enum WhenTaken {
    /** Startup fails with {@link io.github.idworker.WorkerIdTakenException}: the worker runs only on its own id. */
    FAIL,
    /** The worker borrows any free worker id instead and logs which one it took. */
    ANY
}
