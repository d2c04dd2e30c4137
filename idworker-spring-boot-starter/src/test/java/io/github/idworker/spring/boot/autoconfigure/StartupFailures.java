package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/** Looks into a failed startup the way Spring Boot reports it. */
final class StartupFailures {

    private StartupFailures() {
    }

    /** The idworker exception in the cause chain of {@code failure}; fails when there is none. */
    static <T extends IdWorkerException> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + failure, failure);
    }

    /** What Spring Boot would print: the analysis of the idworker failure analyzer. */
    static FailureAnalysis analysis(Throwable failure) {
        FailureAnalysis analysis = new IdWorkerFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("idworker failure analysis of %s", failure).isNotNull();
        return analysis;
    }
}
