package io.github.idworker;

import org.jspecify.annotations.Nullable;

/**
 * Root of every error idworker raises; unchecked. An operation that throws it has issued nothing.
 */
public class IdWorkerException extends RuntimeException {

    public IdWorkerException(String message) {
        super(message);
    }

    public IdWorkerException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
