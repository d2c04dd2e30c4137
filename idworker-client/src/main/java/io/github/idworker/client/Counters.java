package io.github.idworker.client;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/** The counters of one entity; adders, because every nextId counts and many threads may call it at once. */
final class Counters {

    final LongAdder idsServed = new LongAdder();
    final LongAdder calls = new LongAdder();
    final LongAdder httpCalls = new LongAdder();
    final LongAdder waits = new LongAdder();
    final LongAdder failovers = new LongAdder();

    ClientStats snapshot(long buffered, List<EndpointStats> endpoints) {
        return new ClientStats(idsServed.sum(), calls.sum(), httpCalls.sum(), waits.sum(), failovers.sum(), buffered,
                endpoints);
    }
}
