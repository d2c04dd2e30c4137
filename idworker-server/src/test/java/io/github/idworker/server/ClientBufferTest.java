package io.github.idworker.server;

import io.github.idworker.client.ClientStats;
import io.github.idworker.client.IdServiceClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's local buffer against a real sample instance at a steady rate: almost every {@code nextId()} is
 * served from the buffer — the HTTP calls are at most one per batch (plus the first) — and once warm no caller
 * waits for a refill, because the refill starts while {@code refillThreshold} IDs are still buffered.
 */
@Tag("slow")
@Tag("exclusive")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientBufferTest {

    static final String SECRET = "buffer-secret-0123456789ab";
    static final int BATCH = 1000;
    static final int CALLS = 20_000;

    @Test
    void atASteadyRateAtMostOneCallInABatchGoesOverHttpAndNoneWaitsOnceWarm() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.embedded()) {
            int port = ServiceEnvironment.port(environment.start(
                    "--idworker.pool.entities.orders.max-per-second=100000",
                    "--idworker.service.apps.buffer.secret=" + SECRET,
                    "--idworker.service.apps.buffer.entities=orders"));
            try (IdServiceClient client = IdServiceClient.builder().appKey("buffer").secret(SECRET)
                    .environments(List.of(URI.create("http://127.0.0.1:" + port)))
                    .batchSize(BATCH).refillThreshold(800).build()) {
                Set<Long> ids = new HashSet<>();
                ids.add(client.nextId("orders"));
                ClientStats warm = client.stats("orders");
                // a steady ~2 000 IDs per second: 1 ms of sleep every other call
                for (int i = 1; i < CALLS; i++) {
                    assertThat(ids.add(client.nextId("orders"))).isTrue();
                    if (i % 2 == 0) {
                        Thread.sleep(1);
                    }
                }
                ClientStats stats = client.stats("orders");
                double share = (double) stats.httpCalls() / stats.calls();
                System.out.printf("BUFFER: %d nextId calls, %d HTTP calls (%.5f per call, target <= %.5f), %d waited "
                                + "(%d after the first call), %d IDs still buffered%n", stats.calls(),
                        stats.httpCalls(), share, 1.0 / BATCH, stats.waits(), stats.waits() - warm.waits(),
                        stats.buffered());
                assertThat(stats.calls()).isEqualTo(CALLS);
                assertThat(warm.waits()).as("the first call waits for the first batch").isEqualTo(1);
                assertThat(stats.waits() - warm.waits()).as("calls that waited once warm").isZero();
                // the first batch, then one per BATCH IDs served; the buffer may hold one batch ahead
                assertThat(stats.httpCalls()).as("HTTP calls").isLessThanOrEqualTo(CALLS / BATCH + 2);
                assertThat(ids).hasSize(CALLS);
            }
        }
    }
}
