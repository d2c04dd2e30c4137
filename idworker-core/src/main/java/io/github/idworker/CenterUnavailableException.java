package io.github.idworker;

import org.jspecify.annotations.Nullable;

/**
 * The centre (a database or Redis) could not be reached or failed; the operation changed nothing that a
 * later call depends on, and no identifier was issued on the strength of it.
 */
public class CenterUnavailableException extends IdWorkerException {

    public CenterUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
