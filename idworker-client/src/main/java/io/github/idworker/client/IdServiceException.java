package io.github.idworker.client;

import io.github.idworker.IdWorkerException;

/**
 * Root of every error the ID service or the way to it causes in {@link IdServiceClient}; unchecked. A call that
 * throws it has handed out no ID. Messages name the entity and the environments' base URLs, never a request
 * header or the application's secret.
 *
 * <p>Arguments the caller got wrong are {@link IllegalArgumentException}s and a call after
 * {@link IdServiceClient#close()} is an {@link IllegalStateException}: both are bugs of the calling code, not
 * conditions of the service.
 */
public class IdServiceException extends IdWorkerException {

    public IdServiceException(String message) {
        super(message);
    }

    public IdServiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
