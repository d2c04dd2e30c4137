package io.github.idworker;

/**
 * A worker no longer holds a lease that proves its next identifier unique, so it issued nothing.
 *
 * <p>Thrown by a renewal that finds another owner on the slot, and by a worker that reached the
 * high-water timestamp of its lease without a successful renewal within the bounded wait.
 */
public class LeaseLostException extends IdWorkerException {

    public LeaseLostException(String message) {
        super(message);
    }

    public LeaseLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
