package io.github.idworker.server;

import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.signing.RequestSigner;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load generator over loopback, bounded in time, against one sample instance (embedded Redis, H2 TCP server):
 * {@value #THREADS} threads send signed {@code GET /pools/load/ids} calls back to back, first with {@code count=1},
 * then with {@code count=1000}, and print calls per second, IDs per second and the p50/p99/max latency of each
 * phase. It asserts correctness under the load, never speed: every ID of every 200 answer is unique, every answer
 * is 200 or a 503 "ID pool empty" (by design when the load drains the pool faster than it refills), nothing else.
 *
 * <p>{@code -Dload.seconds=N} sets each phase's length (default 3); the README's figures come from
 * {@code mvn -pl idworker-sample verify -Dtest=PoolServiceLoadTest -Dload.seconds=20}.
 */
@Tag("slow")
@Tag("exclusive")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PoolServiceLoadTest {

    static final int THREADS = 8;
    static final String SECRET = "load-secret-0123456789abcdef";
    static final String PATH = "/pools/load/ids";

    private final long phaseMillis = Long.getLong("load.seconds", 3) * 1000;
    private ServiceEnvironment environment;
    private int port;

    @BeforeAll
    void start() throws Exception {
        environment = ServiceEnvironment.embedded();
        ConfigurableApplicationContext context = environment.start(
                "--idworker.pool.entities.load.max-per-second=2000000000",
                "--idworker.pool.entities.load.max-per-request=1000",
                "--idworker.pool.entities.load.step=10000",
                "--idworker.pool.entities.load.max-pool-size=2000000",
                "--idworker.pool.entities.load.threshold-percent=50",
                "--idworker.pool.entities.load.check-interval=200ms",
                "--idworker.service.apps.load.secret=" + SECRET, "--idworker.service.apps.load.entities=load",
                "--idworker.service.apps.load.max-per-second=2000000000",
                "--logging.level.io.github.idworker=WARN");
        port = ServiceEnvironment.port(context);
        // measure a pool above its threshold, not its first fill: appends and takes share the one Redis thread
        RedisIdPools pools = context.getBean(RedisIdPools.class);
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> pools.status("load").level() >= pools.status("load").thresholdLevel());
    }

    @AfterAll
    void stop() throws Exception {
        if (environment != null) {
            environment.close();
        }
    }

    /** What one thread saw in one phase. */
    private static final class Tally {
        long[] latencies = new long[1 << 16];
        int calls;
        long[] ids = new long[1 << 16];
        int idCount;
        final Map<Integer, Integer> statuses = new TreeMap<>();

        void call(long nanos, int status) {
            if (calls == latencies.length) {
                latencies = Arrays.copyOf(latencies, calls * 2);
            }
            latencies[calls++] = nanos;
            statuses.merge(status, 1, Integer::sum);
        }

        void ids(String body) {
            // the body is [n,n,...]: parsed by hand, so the generator spends its time on HTTP, not on a JSON tree
            int i = 1;
            int end = body.length() - 1;
            while (i < end) {
                int comma = body.indexOf(',', i);
                int stop = comma < 0 ? end : comma;
                if (idCount == ids.length) {
                    ids = Arrays.copyOf(ids, idCount * 2);
                }
                ids[idCount++] = Long.parseLong(body, i, stop, 10);
                i = stop + 1;
            }
        }
    }

    private Tally run(int count, long millis) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        RequestSigner signer = new RequestSigner("load", SECRET);
        String query = "count=" + count;
        URI uri = URI.create("http://127.0.0.1:" + port + PATH + "?" + query);
        long deadline = System.nanoTime() + millis * 1_000_000;
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<Future<Tally>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(threads.submit(() -> {
                Tally tally = new Tally();
                while (System.nanoTime() < deadline) {
                    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
                    signer.sign("GET", PATH, query).forEach(request::header);
                    long started = System.nanoTime();
                    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
                    long took = System.nanoTime() - started;
                    tally.call(took, response.statusCode());
                    if (response.statusCode() == 200) {
                        tally.ids(response.body());
                    } else if (response.statusCode() == 503) {
                        assertThat(response.body()).contains("ID pool empty");
                    }
                }
                return tally;
            }));
        }
        Tally all = new Tally();
        for (Future<Tally> future : futures) {
            Tally t = future.get();
            for (int i = 0; i < t.calls; i++) {
                all.call(t.latencies[i], 0);
            }
            all.statuses.remove(0);
            t.statuses.forEach((status, n) -> all.statuses.merge(status, n, Integer::sum));
            all.ids = Arrays.copyOf(all.ids, Math.max(all.ids.length, all.idCount + t.idCount));
            System.arraycopy(t.ids, 0, all.ids, all.idCount, t.idCount);
            all.idCount += t.idCount;
        }
        threads.shutdown();
        return all;
    }

    private void report(String phase, Tally tally) {
        long[] sorted = Arrays.copyOf(tally.latencies, tally.calls);
        Arrays.sort(sorted);
        double seconds = phaseMillis / 1000.0;
        System.out.printf("LOAD %s: %d threads, %.0f s: %d calls (%.0f calls/s), %d IDs (%.0f IDs/s), "
                        + "latency p50 %.2f ms, p99 %.2f ms, max %.2f ms, statuses %s%n", phase, THREADS, seconds,
                tally.calls, tally.calls / seconds, tally.idCount, tally.idCount / seconds,
                sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6,
                sorted[sorted.length - 1] / 1e6, tally.statuses);
        long[] ids = Arrays.copyOf(tally.ids, tally.idCount);
        Arrays.sort(ids);
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1]) {
                throw new AssertionError("ID " + ids[i] + " handed out twice under load (" + phase + ")");
            }
        }
        assertThat(tally.statuses.keySet()).as("statuses under load (%s)", phase).isSubsetOf(200, 503);
        assertThat(tally.statuses.getOrDefault(200, 0)).as("calls answered 200 (%s)", phase).isPositive();
    }

    @Test
    void signedCallsOfOneAndOfAThousandIdsUnderLoadStayUnique() throws Exception {
        assertThat(phaseMillis).as("-Dload.seconds").isPositive();
        // a warm-up: the server and the generator share this JVM, whose compilers need a few seconds on 2 cores
        Tally warm = run(1, 3000);
        assertThat(warm.statuses).containsKey(200);
        Tally ones = run(1, phaseMillis);
        report("count=1", ones);
        Tally thousands = run(1000, phaseMillis);
        report("count=1000", thousands);
        // both phases together: unique across them too
        long[] all = new long[ones.idCount + thousands.idCount];
        System.arraycopy(ones.ids, 0, all, 0, ones.idCount);
        System.arraycopy(thousands.ids, 0, all, ones.idCount, thousands.idCount);
        Arrays.sort(all);
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                throw new AssertionError("ID " + all[i] + " handed out in both phases");
            }
        }
    }
}
