package io.github.idworker.server;

import io.github.idworker.client.ClientStats;
import io.github.idworker.client.IdServiceClient;
import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A bounded soak with faults: two independent environments of the ID service (environment split 0/2 and 1/2),
 * each one server from the built jar with a database and a {@code redis-server} of its own, and several
 * {@link IdServiceClient}s — half preferring environment 0, half environment 1 — taking IDs one at a time at a
 * steady rate for {@code idworker.soak.seconds}. Meanwhile environment 1's Redis is killed and started again empty
 * (every pool, nonce and lease in it lost), and environment 0's server is killed with {@code kill -9} and started
 * again from the jar. Checked at the end: no ID was handed out twice across all clients (and the probes' own
 * calls), no take failed, the clients handed out at least a quarter of what they were paced for, both faulted
 * environments served again, and after the restart both environments served the clients. The figures are printed
 * as one {@code SOAK:} line. Subclasses provide the environments; every process, table, key and file is removed
 * afterwards.
 *
 * <p>System properties: {@code idworker.soak.seconds} (taking time; 30 in the build),
 * {@code idworker.soak.clients} (default 4), {@code idworker.soak.rate} (IDs per second per client, default 5000).
 */
abstract class AbstractServiceSoak {

    static final int SECONDS = Integer.getInteger("idworker.soak.seconds", 30);
    static final int CLIENTS = Integer.getInteger("idworker.soak.clients", 4);
    static final int RATE = Integer.getInteger("idworker.soak.rate", 5000);

    private static final String APP = "soak";
    private static final String ENTITY = "orders";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private final String secret = "soak-" + UUID.randomUUID();
    private final List<Taker> takers = new ArrayList<>();
    private final List<IdServiceClient> clients = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Long> probed = new ArrayList<>();

    @TempDir
    Path logs;

    /** Environment {@code index} (0 or 1): a database and a Redis of its own that can be restarted. */
    abstract ServiceEnvironment environment(int index) throws Exception;

    /** The stores of both environments, for the printed figures. */
    abstract String stores();

    private String[] arguments(int environment) {
        return new String[] {"--idworker.pool.environment=" + environment, "--idworker.pool.environments=2",
                "--idworker.pool.entities." + ENTITY + ".max-per-second=1000000",
                "--idworker.pool.entities." + ENTITY + ".step=1000",
                "--idworker.pool.entities." + ENTITY + ".max-pool-size=100000",
                "--idworker.pool.entities." + ENTITY + ".threshold-percent=50",
                // a refill lock of a killed instance holds up refills no longer than this
                "--idworker.pool.lock-ttl=5s",
                "--idworker.service.apps." + APP + ".secret=" + secret,
                "--idworker.service.apps." + APP + ".entities=" + ENTITY,
                "--idworker.service.apps." + APP + ".max-per-second=1000000"};
    }

    @Test
    void clientsTakingIdsWhileARedisLosesItsDataAndAServerIsKilledNeverGetADuplicate() {
        // every wait below is bounded; this bounds them all, whatever idworker.soak.seconds says
        assertTimeoutPreemptively(Duration.ofSeconds(SECONDS + 600L), () -> {
            long testStart = System.nanoTime();
            try (ServiceEnvironment zero = environment(0); ServiceEnvironment one = environment(1)) {
                try {
                    Timeline timeline = soak(zero, one, testStart);
                    check(timeline, testStart);
                } finally {
                    // the takers stop before the environments close under them
                    stopTakers();
                }
            }
        });
    }

    /** When each fault came and how long the faulted environment took to serve again, in seconds. */
    private record Timeline(double setup, double redisLostAt, double redisRecovery, double killedAt,
                            double killRecovery, double ran, int[] lastPhase) {
    }

    /** Starts both servers and the takers, brings the faults, and stops the takers when the time is up. */
    private Timeline soak(ServiceEnvironment zero, ServiceEnvironment one, long testStart) throws Exception {
        int port0 = EmbeddedRedisInitializer.freePort();
        int port1 = EmbeddedRedisInitializer.freePort();
        ServerJar server0 = zero.startJar(port0, logs.resolve("env0.log"), arguments(0));
        ServerJar server1 = one.startJar(port1, logs.resolve("env1.log"), arguments(1));
        awaitServing(server0.awaitReady(START_TIMEOUT));
        awaitServing(server1.awaitReady(START_TIMEOUT));
        double setup = seconds(testStart);

        List<URI> preferZero = List.of(server0.uri(), server1.uri());
        List<URI> preferOne = List.of(server1.uri(), server0.uri());
        for (int i = 0; i < CLIENTS; i++) {
            IdServiceClient client = IdServiceClient.builder().appKey(APP).secret(secret)
                    .environments(i % 2 == 0 ? preferZero : preferOne).batchSize(500).refillThreshold(250)
                    .connectTimeout(Duration.ofMillis(500)).requestTimeout(Duration.ofSeconds(2))
                    .failureThreshold(2).openDuration(Duration.ofSeconds(1)).maxWait(Duration.ofSeconds(10))
                    .build();
            clients.add(client);
            takers.add(new Taker(client, running, "soak-taker-" + i));
        }
        long start = System.nanoTime();
        takers.forEach(Thread::start);

        sleepUntil(start, SECONDS * 0.2);
        double redisLostAt = seconds(start);
        one.restartRedisEmpty();
        awaitServing(server1);
        double redisRecovery = seconds(start) - redisLostAt;

        sleepUntil(start, SECONDS * 0.4);
        double killedAt = seconds(start);
        server0.kill();
        Thread.sleep(2000);
        server0 = zero.startJar(port0, logs.resolve("env0-restarted.log"), arguments(0));
        awaitServing(server0.awaitReady(START_TIMEOUT));
        double killRecovery = seconds(start) - killedAt;

        // the clients preferring environment 0 return to it within an open period (1 s): what they take from here
        // on shows whether both environments serve again
        Thread.sleep(3000);
        int[] lastPhase = takers.stream().mapToInt(t -> t.size).toArray();
        sleepUntil(start, Math.max(SECONDS, seconds(start) + 5));
        stopTakers();
        return new Timeline(setup, redisLostAt, redisRecovery, killedAt, killRecovery, seconds(start), lastPhase);
    }

    private void stopTakers() throws InterruptedException {
        running.set(false);
        for (Taker taker : takers) {
            taker.join(30_000);
        }
        clients.forEach(IdServiceClient::close);
    }

    /** Prints the figures, then checks them. */
    private void check(Timeline timeline, long testStart) {
        long[] all = takers.stream().flatMapToLong(t -> Arrays.stream(t.ids, 0, t.size)).toArray();
        long[] everything = LongStream.concat(Arrays.stream(all), probed.stream().mapToLong(Long::longValue))
                .toArray();
        long duplicates = duplicates(everything);
        long errors = takers.stream().mapToLong(t -> t.errors).sum();
        long even = Arrays.stream(all).filter(id -> id % 2 == 0).count();
        long lastEven = 0;
        long lastOdd = 0;
        for (int i = 0; i < takers.size(); i++) {
            Taker taker = takers.get(i);
            for (int j = timeline.lastPhase()[i]; j < taker.size; j++) {
                if (taker.ids[j] % 2 == 0) {
                    lastEven++;
                } else {
                    lastOdd++;
                }
            }
        }
        long failovers = 0;
        long httpCalls = 0;
        for (IdServiceClient client : clients) {
            ClientStats stats = client.stats(ENTITY);
            failovers += stats.failovers();
            httpCalls += stats.httpCalls();
        }
        long minimum = Math.max(1000, (long) SECONDS * CLIENTS * RATE / 4);
        System.out.printf("SOAK (%s): %d IDs handed out in %.1f s by %d clients paced at %d/s each (environment 0: "
                        + "%d, environment 1: %d), %d duplicates, %d failed takes, %d failovers, %d HTTP calls; Redis "
                        + "of environment 1 restarted empty at %.1f s, serving again %.1f s later; server of "
                        + "environment 0 killed -9 at %.1f s, restarted from the jar and serving again %.1f s later; "
                        + "setup %.1f s, whole test %.1f s%n", stores(), all.length, timeline.ran(), CLIENTS, RATE,
                even, all.length - even, duplicates, errors, failovers, httpCalls, timeline.redisLostAt(),
                timeline.redisRecovery(), timeline.killedAt(), timeline.killRecovery(), timeline.setup(),
                seconds(testStart));

        assertThat(takers).as("taker threads still running").noneMatch(Thread::isAlive);
        assertThat(duplicates).as("IDs handed out twice").isZero();
        assertThat(errors).as("failed takes (first: %s)", takers.stream().map(t -> t.firstError)
                .filter(e -> e != null).findFirst().orElse(null)).isZero();
        assertThat((long) all.length).as("IDs handed out").isGreaterThanOrEqualTo(minimum);
        assertThat(failovers).as("failovers").isPositive();
        assertThat(lastEven).as("IDs of environment 0 after its restart").isPositive();
        assertThat(lastOdd).as("IDs of environment 1 after its Redis came back").isPositive();
    }

    /** Waits until {@code server} hands out a pool ID to a signed call; keeps that ID for the duplicate count. */
    private void awaitServing(ServerJar server) throws Exception {
        RequestSigner signer = new RequestSigner(APP, secret);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            if (!server.process.isAlive()) {
                throw new AssertionError("the server on port " + server.port + " exited:\n" + server.tail(40));
            }
            try {
                SignedHttp.Response response = SignedHttp.signedGet(server.port, signer, "/pools/" + ENTITY + "/ids",
                        "");
                if (response.status() == 200) {
                    Arrays.stream(response.ids()).forEach(probed::add);
                    return;
                }
                last = "HTTP " + response.status() + " " + response.text();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the server on port " + server.port + " served no pool ID within " + START_TIMEOUT
                + " (last: " + last + "):\n" + server.tail(40));
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static void sleepUntil(long start, double seconds) throws InterruptedException {
        long left = start + (long) (seconds * 1e9) - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** How many entries of {@code ids} repeat an earlier one. */
    static long duplicates(long[] ids) {
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        long duplicates = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                duplicates++;
            }
        }
        return duplicates;
    }

    /**
     * One client's caller: {@code nextId} one at a time, paced at {@link #RATE} per second in 10 ms windows and
     * never catching up on time lost waiting, every ID kept. A failed take is counted and the loop goes on.
     */
    private static final class Taker extends Thread {

        private final IdServiceClient client;
        private final AtomicBoolean running;
        long[] ids = new long[1 << 16];
        volatile int size;
        volatile long errors;
        volatile String firstError;

        Taker(IdServiceClient client, AtomicBoolean running, String name) {
            super(name);
            this.client = client;
            this.running = running;
            setDaemon(true);
        }

        @Override
        public void run() {
            int perWindow = Math.max(1, RATE / 100);
            long windowStart = System.nanoTime();
            int inWindow = 0;
            while (running.get()) {
                try {
                    if (inWindow >= perWindow) {
                        long left = windowStart + 10_000_000L - System.nanoTime();
                        if (left > 0) {
                            TimeUnit.NANOSECONDS.sleep(left);
                        }
                        windowStart = System.nanoTime();
                        inWindow = 0;
                    }
                    long id = client.nextId(ENTITY);
                    inWindow++;
                    if (size == ids.length) {
                        ids = Arrays.copyOf(ids, ids.length * 2);
                    }
                    ids[size] = id;
                    size = size + 1;
                } catch (RuntimeException e) {
                    // IdServiceException above all; anything else is counted too rather than ending the thread
                    if (firstError == null) {
                        firstError = e.toString();
                    }
                    errors = errors + 1;
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
