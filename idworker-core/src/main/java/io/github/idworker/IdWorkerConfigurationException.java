package io.github.idworker;

/**
 * A setting or argument is outside what idworker can run with safely; the message names the property or
 * argument and what is allowed.
 */
public class IdWorkerConfigurationException extends IdWorkerException {

    private final String property;

    public IdWorkerConfigurationException(String property, String message) {
        super(property + ": " + message);
        this.property = property;
    }

    public IdWorkerConfigurationException(String property, String message, Throwable cause) {
        super(property + ": " + message, cause);
        this.property = property;
    }

    /** The property or argument at fault, for example {@code idworker.snowflake.worker-bits}. */
    public String getProperty() {
        return property;
    }
}
