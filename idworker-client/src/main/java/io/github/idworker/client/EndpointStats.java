package io.github.idworker.client;

import org.jspecify.annotations.Nullable;

import java.net.URI;

/**
 * A snapshot of one environment as the client sees it.
 *
 * @param baseUrl the environment's base URL as configured ({@code scheme://host:port})
 * @param state its circuit's state
 * @param consecutiveFailures failures since its last answer (reset by any answer other than a failure)
 * @param httpCalls requests sent to it, failed ones included
 * @param environment the split {@code e/E} it reported in {@code X-Id-Environment} with the first IDs this client
 *        took from it, fixed from then on; null before that
 */
public record EndpointStats(URI baseUrl, CircuitState state, int consecutiveFailures, long httpCalls,
                            @Nullable String environment) {
}
