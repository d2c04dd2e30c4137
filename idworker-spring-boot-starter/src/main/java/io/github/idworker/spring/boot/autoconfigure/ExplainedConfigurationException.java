package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;

/**
 * An {@link IdWorkerConfigurationException} that knows what to do about it: {@link IdWorkerFailureAnalyzer} shows
 * its {@link #action()} rather than the generic "correct the property" one, for failures whose fix is not a
 * property's value (a bean, a dependency, a name).
 */
class ExplainedConfigurationException extends IdWorkerConfigurationException {

    private final String action;

    ExplainedConfigurationException(String property, String message, String action) {
        super(property, message);
        this.action = action;
    }

    /** What the failure analysis tells the user to do. */
    String action() {
        return action;
    }
}
