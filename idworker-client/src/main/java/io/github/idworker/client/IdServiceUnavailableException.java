package io.github.idworker.client;

/**
 * No environment could serve: each one failed (connection error, timeout, a 5xx or otherwise unexpected status, a
 * malformed body, a 200 whose {@code X-Id-Environment} split was missing, wrong or in conflict with another
 * environment's) or was skipped because its circuit is open; or a caller waited {@code maxWait} for a refill that
 * had not ended. The message lists every environment's base URL with its last failure (a status, or an exception
 * class and its message) or its circuit state. Retrying later may succeed.
 */
public class IdServiceUnavailableException extends IdServiceException {

    public IdServiceUnavailableException(String message) {
        super(message);
    }

    public IdServiceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
