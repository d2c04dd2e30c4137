package io.github.idworker.server;

import io.github.idworker.client.CircuitState;
import io.github.idworker.client.ClientStats;
import io.github.idworker.client.IdServiceClient;
import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two independent environments of the ID service — environment 0 and 1 of 2, each a sample instance in a child
 * JVM with its own database and its own Redis — and an {@link IdServiceClient} preferring environment 0, taking
 * IDs in a loop while environment 0 is killed ({@code kill -9}) and later started again. The loop never fails,
 * every ID is unique, IDs of environment 1 (odd) stand in while 0 is down, and the client returns to the
 * restarted environment 0 (even IDs again, its circuit closed). Subclasses provide the environments.
 */
@Tag("slow")
@Tag("exclusive")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
abstract class AbstractClientFailoverTest {

    static final String SECRET = "failover-secret-0123456789";

    @TempDir
    Path logs;

    abstract ServiceEnvironment environment(int index) throws Exception;

    private static String[] arguments(int environment) {
        return new String[] {"--idworker.pool.environment=" + environment, "--idworker.pool.environments=2",
                "--idworker.pool.entities.orders.max-per-second=100000", "--idworker.pool.entities.orders.step=1000",
                "--idworker.pool.entities.orders.max-pool-size=20000",
                "--idworker.service.apps.client.secret=" + SECRET, "--idworker.service.apps.client.entities=orders",
                "--logging.level.io.github.idworker=WARN"};
    }

    /** Waits until the instance on {@code port} answers a signed call, or its process died. */
    private static void awaitServing(int port, Process process, Path log) throws Exception {
        RequestSigner signer = new RequestSigner("client", SECRET);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the instance on port " + port + " exited: " + tail(log));
            }
            try {
                if (SignedHttp.signedGet(port, signer, "/pools/orders/ids", "").status() == 200) {
                    return;
                }
            } catch (java.io.IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the instance on port " + port + " did not serve within 120 s: " + tail(log));
    }

    private static String tail(Path log) throws Exception {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    @Test
    void aClientTakingIdsInALoopNeverFailsWhileItsPreferredEnvironmentIsKilledAndRestarted() throws Exception {
        try (ServiceEnvironment zero = environment(0); ServiceEnvironment one = environment(1)) {
            int port0 = EmbeddedRedisInitializer.freePort();
            int port1 = EmbeddedRedisInitializer.freePort();
            Process first = zero.startProcess(port0, logs.resolve("env0.log"), arguments(0));
            Process other = one.startProcess(port1, logs.resolve("env1.log"), arguments(1));
            awaitServing(port0, first, logs.resolve("env0.log"));
            awaitServing(port1, other, logs.resolve("env1.log"));

            try (IdServiceClient client = IdServiceClient.builder().appKey("client").secret(SECRET)
                    .environments(List.of(URI.create("http://127.0.0.1:" + port0), URI.create("http://127.0.0.1:" + port1)))
                    .batchSize(100).refillThreshold(50).connectTimeout(Duration.ofMillis(500))
                    .requestTimeout(Duration.ofSeconds(2)).failureThreshold(2).openDuration(Duration.ofSeconds(1))
                    .maxWait(Duration.ofSeconds(10)).build()) {
                List<Long> ids = new ArrayList<>();
                AtomicBoolean running = new AtomicBoolean(true);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread loop = new Thread(() -> {
                    try {
                        long taken = 0;
                        while (running.get()) {
                            long id = client.nextId("orders");
                            synchronized (ids) {
                                ids.add(id);
                            }
                            // a steady 2 000 IDs per second or so: refills go over HTTP every 50 ms
                            if (++taken % 2 == 0) {
                                Thread.sleep(1);
                            }
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "taker");
                loop.start();

                Thread.sleep(2000);
                int beforeKill = size(ids);
                first.destroyForcibly().waitFor();
                Thread.sleep(4000);
                int whileDown = size(ids) - beforeKill;
                first = zero.startProcess(port0, logs.resolve("env0-restarted.log"), arguments(0));
                awaitServing(port0, first, logs.resolve("env0-restarted.log"));
                int restartedAt = size(ids);
                // back on environment 0 within a few open periods: the last 200 IDs even
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && !lastAreEven(ids, 200, restartedAt)) {
                    Thread.sleep(100);
                }
                running.set(false);
                loop.join(15_000);

                assertThat(failure.get()).as("the taking loop's failure").isNull();
                Set<Long> unique;
                List<Long> all;
                synchronized (ids) {
                    all = new ArrayList<>(ids);
                }
                unique = new HashSet<>(all);
                long odd = all.stream().filter(id -> id % 2 == 1).count();
                ClientStats stats = client.stats("orders");
                System.out.printf("FAILOVER: %d IDs (%d before the kill, %d while environment 0 was down), %d of "
                                + "environment 1, %d HTTP calls, %d failovers, %d waits; endpoints %s%n", all.size(),
                        beforeKill, whileDown, odd, stats.httpCalls(), stats.failovers(), stats.waits(),
                        stats.endpoints());
                assertThat(unique).as("IDs handed out twice").hasSameSizeAs(all);
                assertThat(whileDown).as("IDs taken while environment 0 was down").isPositive();
                assertThat(odd).as("IDs of environment 1").isPositive();
                assertThat(lastAreEven(ids, 200, restartedAt)).as("back on the restarted environment 0").isTrue();
                assertThat(stats.failovers()).isPositive();
                assertThat(stats.endpoints().get(0).state()).isEqualTo(CircuitState.CLOSED);
            }
        }
    }

    private static int size(List<Long> ids) {
        synchronized (ids) {
            return ids.size();
        }
    }

    /** Whether the last {@code n} IDs, all taken after index {@code from}, are environment 0's. */
    private static boolean lastAreEven(List<Long> ids, int n, int from) {
        synchronized (ids) {
            if (ids.size() - from < n) {
                return false;
            }
            return ids.subList(ids.size() - n, ids.size()).stream().allMatch(id -> id % 2 == 0);
        }
    }
}
