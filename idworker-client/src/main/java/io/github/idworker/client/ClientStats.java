package io.github.idworker.client;

import java.util.List;

/**
 * An immutable snapshot of an {@link IdServiceClient}'s counters, for one entity or summed over all of them. The
 * counters are read one after another, not atomically together, while other threads may be counting.
 *
 * @param idsServed IDs handed to callers by {@code nextId} and {@code nextIds}
 * @param calls invocations of {@code nextId} and {@code nextIds}, failed ones included
 * @param httpCalls HTTP requests sent (refills and {@code fetch}), failed ones included
 * @param waits calls of {@code nextId}/{@code nextIds} that found too few IDs in the buffer and waited for a refill
 *        (the first call for an entity always does)
 * @param failovers requests sent to an environment after an earlier one was passed over within the same fetch
 *        (it failed, was rate-limited, or its circuit was open)
 * @param buffered IDs held in the local buffer now, fetched and not yet handed out
 * @param endpoints every environment in preference order (client-wide, also in an entity's stats)
 */
public record ClientStats(long idsServed, long calls, long httpCalls, long waits, long failovers, long buffered,
                          List<EndpointStats> endpoints) {

    public ClientStats {
        endpoints = List.copyOf(endpoints);
    }
}
