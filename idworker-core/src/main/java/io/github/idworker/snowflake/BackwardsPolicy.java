package io.github.idworker.snowflake;

/**
 * What a worker does when the clock steps back further than its tolerated step.
 */
public enum BackwardsPolicy {
    /** Borrow another worker id and carry on from the current clock; the old one is returned. */
    SWITCH_WORKER,
    /** Throw {@link io.github.idworker.ClockMovedBackwardsException} until the clock has caught up. */
    FAIL
}
