package io.github.idworker.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.signing.SignatureVerifier;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in environment of the ID service on 127.0.0.1: it checks every request's signature with the real
 * {@link SignatureVerifier} and its nonce against the nonces every stand-in of a test saw (so a request signed
 * differently from the server, or a reused nonce, is answered 401 and counted), then answers as told: unique IDs of
 * its split {@code e/E} (as the server, {@code e + E·k} for k = 1, 2, …) with the header
 * {@code X-Id-Environment: e/E}, a status with a problem document, a hang, or any body. Its split and the header it
 * sends can be changed. It can be stopped (connection refused) and restarted on the same port.
 */
final class StandIn implements AutoCloseable {

    static {
        // without it the JDK server's separate header and body writes meet the client's delayed ACK: 40 ms a call
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    static final String APP_KEY = "demo-app";
    /** Random per run, so a test can look for it in every message. */
    static final String SECRET = "s3cret-" + java.util.UUID.randomUUID();

    /** What the stand-in does with a request that passed the signature check. */
    @FunctionalInterface
    interface Behaviour {
        void answer(StandIn standIn, HttpExchange exchange, int count) throws IOException;
    }

    private final AtomicLong counter = new AtomicLong();
    private final Set<String> nonces;
    private final SignatureVerifier verifier = new SignatureVerifier(
            key -> APP_KEY.equals(key) ? List.of(SECRET) : List.of(), Duration.ofMinutes(5), System::currentTimeMillis);
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger refusedSignatures = new AtomicInteger();
    private final AtomicLong issued = new AtomicLong();
    private final ExecutorService handlers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "stand-in");
        t.setDaemon(true);
        return t;
    });
    private volatile Behaviour behaviour = ids();
    private volatile int environment;
    private volatile int environments;
    /** Values of X-Id-Environment sent with every 200. */
    private volatile List<String> reported;
    private volatile CountDownLatch hanging = new CountDownLatch(1);
    private HttpServer server;
    private final int port;

    /**
     * @param environment {@code e} of the split it issues IDs of and reports
     * @param environments {@code E} of that split
     * @param nonces shared by the stand-ins of a test, so a nonce reused on failover is caught
     */
    StandIn(int environment, int environments, Set<String> nonces) throws IOException {
        split(environment, environments);
        this.nonces = nonces;
        this.server = start(0);
        this.port = server.getAddress().getPort();
    }

    /**
     * {@code n} stand-ins sharing a nonce set, the {@code i}-th environment {@code i} of {@code n}, so that they
     * never answer the same ID: a single one owns the whole ID space (0/1) and answers 1, 2, 3, …; of two, the
     * first answers 2, 4, 6, … and the second 3, 5, 7, ….
     */
    static List<StandIn> several(int n) throws IOException {
        Set<String> nonces = ConcurrentHashMap.newKeySet();
        StandIn[] standIns = new StandIn[n];
        for (int i = 0; i < n; i++) {
            standIns[i] = new StandIn(i, n, nonces);
        }
        return List.of(standIns);
    }

    private HttpServer start(int onPort) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 50);
        s.createContext("/", this::handle);
        // handlers on their own threads: a hanging one must not block the next request
        s.setExecutor(handlers);
        s.start();
        return s;
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port);
    }

    int calls() {
        return calls.get();
    }

    /** Requests answered 401 because of their signature headers; a correct client makes none. */
    int refusedSignatures() {
        return refusedSignatures.get();
    }

    /** IDs answered with 200. */
    long issued() {
        return issued.get();
    }

    StandIn behave(Behaviour behaviour) {
        this.behaviour = behaviour;
        return this;
    }

    /** Issues IDs of split {@code e/E} from now on, and reports it. */
    StandIn split(int e, int n) {
        this.environment = e;
        this.environments = n;
        this.reported = List.of(e + "/" + n);
        return this;
    }

    /** Sends these values of X-Id-Environment with every 200 from now on (none: no header), whatever it issues. */
    StandIn reporting(String... values) {
        this.reported = List.of(values);
        return this;
    }

    /** Connections are refused from now on; a hanging request is released. */
    synchronized void stop() {
        hanging.countDown();
        server.stop(0);
    }

    /** Listens on the same port again. */
    synchronized void restart() throws IOException {
        hanging = new CountDownLatch(1);
        server = start(port);
    }

    @Override
    public void close() {
        stop();
        handlers.shutdownNow();
    }

    /**
     * A client of these stand-ins, in this order, with timeouts short enough for tests. Its HTTP timeouts are 2 s, as
     * the {@link #fetcher}'s: a first call on a 2-core machine under a full build (a cold HTTP client and stand-in)
     * took longer than 500 ms, and a test that waits for a request timeout sets its own.
     */
    static IdServiceClient.Builder client(List<StandIn> standIns) {
        return IdServiceClient.builder().appKey(APP_KEY).secret(SECRET)
                .environments(standIns.stream().map(StandIn::baseUrl).toList())
                .connectTimeout(Duration.ofSeconds(2))
                .requestTimeout(Duration.ofSeconds(2))
                .openDuration(Duration.ofMillis(500));
    }

    /**
     * The fetcher an {@link IdServiceClient} of these stand-ins would use, for tests of the parts beneath it. Its
     * HTTP timeouts are 2 s: no test of it waits for one, and a first call on a loaded machine (a cold HTTP client
     * and stand-in) took longer than 500 ms.
     */
    static FailoverFetcher fetcher(List<StandIn> standIns) {
        List<Endpoint> endpoints = standIns.stream().map(s -> new Endpoint(s.baseUrl(), 3,
                TimeUnit.MILLISECONDS.toNanos(500), System::nanoTime)).toList();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        return new FailoverFetcher(new RequestSigner(APP_KEY, SECRET), endpoints, http, Duration.ofSeconds(2));
    }

    static Behaviour ids() {
        return (standIn, exchange, count) -> {
            StringBuilder body = new StringBuilder("[");
            int e = standIn.environment;
            int n = standIn.environments;
            for (int i = 0; i < count; i++) {
                body.append(i == 0 ? "" : ",").append(e + n * standIn.counter.incrementAndGet());
            }
            standIn.issued.addAndGet(count);
            standIn.sendIds(exchange, body.append(']').toString());
        };
    }

    static Behaviour status(int status) {
        return problem(status, "{\"type\":\"about:blank\",\"title\":\"Status " + status + "\",\"status\":" + status + "}",
                Map.of());
    }

    static Behaviour problem(int status, String json, Map<String, String> headers) {
        return (standIn, exchange, count) -> send(exchange, status, "application/problem+json", json, headers);
    }

    /** 200 with this body and the header X-Id-Environment as reported. */
    static Behaviour body(String body) {
        return (standIn, exchange, count) -> standIn.sendIds(exchange, body);
    }

    /** Answers nothing until stopped (or 10 s). */
    static Behaviour hang() {
        return (standIn, exchange, count) -> {
            try {
                standIn.hanging.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        };
    }

    private void handle(HttpExchange exchange) throws IOException {
        calls.incrementAndGet();
        try (exchange) {
            URI uri = exchange.getRequestURI();
            String[] parts = uri.getRawPath().split("/");
            if (parts.length != 4 || !parts[1].equals("pools") || !parts[3].equals("ids")
                    || uri.getRawQuery() == null || !uri.getRawQuery().startsWith("count=")) {
                send(exchange, 400, "application/problem+json", "{\"status\":400,\"title\":\"Bad Request\"}", Map.of());
                return;
            }
            SignatureVerifier.Outcome outcome = verifier.verify(exchange.getRequestMethod(), uri.getRawPath(),
                    uri.getRawQuery(), exchange.getRequestHeaders()::getFirst);
            String nonce = exchange.getRequestHeaders().getFirst("X-Nonce");
            String reason = switch (outcome) {
                case VALID -> nonces.add(nonce) ? null : "replay";
                case MISSING_HEADER -> "missing-header";
                case EXPIRED -> "timestamp";
                case BAD_NONCE -> "nonce";
                case BAD_SIGNATURE -> "signature";
            };
            if (reason != null) {
                refusedSignatures.incrementAndGet();
                send(exchange, 401, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Unauthorized\","
                        + "\"status\":401,\"detail\":\"unauthorized\"}", Map.of());
                return;
            }
            behaviour.answer(this, exchange, Integer.parseInt(uri.getRawQuery().substring("count=".length())));
        }
    }

    private void sendIds(HttpExchange exchange, String body) throws IOException {
        List<String> values = reported;
        if (!values.isEmpty()) {
            exchange.getResponseHeaders().put(EnvironmentSplit.HEADER, new ArrayList<>(values));
        }
        send(exchange, 200, "application/json", body, Map.of());
    }

    private static void send(HttpExchange exchange, int status, String type, String body, Map<String, String> headers)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        headers.forEach(exchange.getResponseHeaders()::set);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
