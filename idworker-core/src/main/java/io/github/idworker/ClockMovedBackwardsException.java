package io.github.idworker;

import java.time.Duration;
import java.time.Instant;

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

    private ClockMovedBackwardsException(String message, long backwardsMillis) {
        super(message);
        this.backwardsMillis = backwardsMillis;
    }

    /** The clock reads an instant before the layout's epoch: no timestamp can be encoded, wherever the worker moves. */
    public static ClockMovedBackwardsException beforeEpoch(String namespace, Instant clock, Instant epoch) {
        return new ClockMovedBackwardsException("The clock of namespace '" + namespace + "' reads " + clock
                + ", before the epoch " + epoch + " (idworker.snowflake.epoch); no identifier was issued. "
                + "Check this host's clock.", Duration.between(clock, epoch).toMillis());
    }

    public long getBackwardsMillis() {
        return backwardsMillis;
    }
}
