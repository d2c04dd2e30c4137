package io.github.idworker;

/**
 * The wall clock stepped back further than tolerated and the worker was told not to move to another
 * worker id; nothing was issued.
 */
public class ClockMovedBackwardsException extends IdWorkerException {

    private final long backwardsMillis;

    public ClockMovedBackwardsException(String namespace, long backwardsMillis, long toleratedMillis) {
        super("Clock moved backwards by " + backwardsMillis + " ms in namespace '" + namespace
                + "', more than the tolerated " + toleratedMillis + " ms (idworker.snowflake.max-backward). "
                + "Set idworker.snowflake.on-large-backward-step=switch-worker to move to another worker id instead.");
        this.backwardsMillis = backwardsMillis;
    }

    public long getBackwardsMillis() {
        return backwardsMillis;
    }
}
