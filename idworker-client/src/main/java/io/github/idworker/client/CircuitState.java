package io.github.idworker.client;

/** State of one environment's circuit breaker. */
public enum CircuitState {

    /** Requests go to the environment. */
    CLOSED,

    /**
     * {@code failureThreshold} consecutive failures: the environment is skipped until {@code openDuration} has
     * passed since the last of them. It stays OPEN in the stats until a request tries it.
     */
    OPEN,

    /** The open period has passed and one trial request is in flight; others still skip the environment. */
    HALF_OPEN
}
