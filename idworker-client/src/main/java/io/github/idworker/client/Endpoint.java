package io.github.idworker.client;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One environment of the service: its base URL, its circuit breaker, its request count, its last failure (so
 * that a skipped environment can still say why in an {@link IdServiceUnavailableException}) and the split of the IDs
 * taken from it. Thread-safe.
 */
final class Endpoint {

    private static final Logger log = LoggerFactory.getLogger(IdServiceClient.class);

    private final URI baseUrl;
    private final String base;
    private final CircuitBreaker breaker;
    private final LongAdder httpCalls = new LongAdder();
    private volatile @Nullable String lastFailure;
    /** Set once, by {@link EnvironmentSplits}, at the first answer whose split it accepted. */
    private volatile @Nullable EnvironmentSplit split;

    Endpoint(URI baseUrl, int failureThreshold, long openNanos, LongSupplier nanoClock) {
        this.baseUrl = baseUrl;
        this.base = baseUrl.toString();
        this.breaker = new CircuitBreaker(failureThreshold, openNanos, nanoClock);
    }

    URI baseUrl() {
        return baseUrl;
    }

    URI uri(String path, String query) {
        return URI.create(base + path + '?' + query);
    }

    /** The split of the IDs taken from this environment, or null before its first accepted answer. */
    @Nullable EnvironmentSplit split() {
        return split;
    }

    /** Only {@link EnvironmentSplits}, under its lock. */
    void acceptSplit(EnvironmentSplit accepted) {
        this.split = accepted;
    }

    boolean tryAcquire() {
        return breaker.tryAcquire();
    }

    void countCall() {
        httpCalls.increment();
    }

    /** The environment answered with IDs, 400, 403 or 429: it is up. */
    void answered() {
        CircuitState before = breaker.onAnswer();
        if (before != CircuitState.CLOSED) {
            log.info("ID service environment {} answers again: circuit closed", base);
        }
    }

    void failed(String failure) {
        lastFailure = failure;
        if (breaker.onFailure()) {
            log.warn("ID service environment {} failed {} times in a row, last: {}; circuit open, skipped for {} ms",
                    base, breaker.consecutiveFailures(), failure, breaker.millisUntilTrial());
        } else {
            log.debug("ID service environment {} failed: {}", base, failure);
        }
    }

    void abandoned() {
        breaker.onAbandoned();
    }

    /** Why the environment was passed over without a request, for an exception message. */
    String skipped() {
        if (breaker.state() == CircuitState.HALF_OPEN) {
            return "circuit half-open, its trial request in flight (last failure: " + lastFailure + ")";
        }
        return "circuit open after " + breaker.consecutiveFailures() + " consecutive failures (last: " + lastFailure
                + "), next trial in " + breaker.millisUntilTrial() + " ms";
    }

    EndpointStats stats() {
        EnvironmentSplit accepted = split;
        return new EndpointStats(baseUrl, breaker.state(), breaker.consecutiveFailures(), httpCalls.sum(),
                accepted == null ? null : accepted.toString());
    }

    @Override
    public String toString() {
        return base;
    }
}
