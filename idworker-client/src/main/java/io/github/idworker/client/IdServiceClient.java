package io.github.idworker.client;

import io.github.idworker.signing.RequestSigner;
import io.github.idworker.signing.SecretForm;
import org.jspecify.annotations.Nullable;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client of the idworker ID service ({@code GET /pools/{entity}/ids?count=N}, signed with the application's key
 * and secret) for one application, over one or more independent environments of the service.
 *
 * <p>Guarantees: an ID is handed to at most one caller (the environments hand out disjoint IDs — checked on every
 * answer against the split each reports — and the local buffer removes each one exactly once); IDs fetched are handed out in the order fetched and are dropped only by
 * {@link #close()}; {@code nextIds} and {@code fetch} are all or nothing; a call that throws has handed out
 * nothing. The application's secret appears in no {@code toString}, log line or exception message. Thread-safe.
 *
 * <p>Steps of {@link #nextId(String)} and {@link #nextIds(String, int)}:
 * <ol>
 *   <li>take the IDs from the entity's local buffer when it holds enough;</li>
 *   <li>when that leaves fewer than {@code refillThreshold} IDs and no refill of the entity is in flight, start
 *       one in the background: one {@link #fetch} of {@code batchSize} IDs on a daemon thread, appended to the
 *       buffer when it returns. After a failed refill, takes start none for a backoff (a 429's retry-after, else
 *       {@code openDuration}), so a limited or refusing service is not asked on every take;</li>
 *   <li>when the buffer holds too few (always on the first call for an entity), start a refill unless one is in
 *       flight and wait for it, {@code maxWait} at most; then take, or throw the refill's failure (the same
 *       exception instance for every caller that waited for that refill), or {@link IdServiceUnavailableException}
 *       when {@code maxWait} passed.</li>
 * </ol>
 *
 * <p>Steps of {@link #fetch(String, int)} (and of every refill):
 * <ol>
 *   <li>try the environments in the order configured, skipping one whose circuit is OPEN until its
 *       {@code openDuration} has passed (then one request is its trial) — so after an outage the client returns
 *       to the preferred environment as soon as a trial succeeds;</li>
 *   <li>sign each request afresh (new timestamp and nonce) and send it, bounded by {@code requestTimeout} (for
 *       {@link #fetch}, by what is left of {@code maxWait} when that is shorter: a fetch ends within
 *       {@code maxWait} in all, leaving environments it did not reach untried);</li>
 *   <li>200 with exactly {@code count} distinct IDs and a header {@code X-Id-Environment: e/E} that passes the
 *       split checks — every ID has {@code id mod E = e}; the environment reported the same {@code e/E} on its
 *       first accepted answer, or had none; {@code E > 1} when more than one environment is configured; no other
 *       environment reported another {@code E} or the same {@code e/E} — return them and reset the environment's
 *       circuit. The split is remembered per environment ({@link EndpointStats#environment()});</li>
 *   <li>400, 403: throw {@link IdServiceRefusedException} at once — the request itself or the application's rights
 *       are at fault, and every environment would say the same; no circuit counts it;</li>
 *   <li>401, 404: count a failure against the environment and go on to the next — environments have their own
 *       clocks, Redis (nonces) and application and entity tables, so one may refuse what another serves (clock
 *       drift, an application or entity registered in one only, a proxy's retry seen as a replay);</li>
 *   <li>429: go on to the next environment; when no environment served and any said 429, throw
 *       {@link IdServiceRateLimitedException} with the smallest retry-after;</li>
 *   <li>connection error, timeout, 5xx, any other status, a malformed 200, a 200 that fails the split checks
 *       (its IDs are never handed out): count a failure against the environment (its circuit opens at
 *       {@code failureThreshold} in a row) and go on to the next;</li>
 *   <li>nothing served and no 429: when every environment that answered refused with 401 or 404 (the others
 *       failed or were skipped), throw that refusal — {@link IdServiceRefusedException} of the first 401, else
 *       {@link UnknownEntityException}; when none answered, {@link IdServiceUnavailableException}; either lists
 *       each environment's outcome. When every circuit is open no request is sent at all: the service is spared
 *       every client's retries and is tried again when the first open period ends.</li>
 * </ol>
 *
 * <p>Arguments outside what is documented throw {@link IllegalArgumentException}; a call after {@link #close()}
 * throws {@link IllegalStateException}; everything the service or the network causes is an
 * {@link IdServiceException}.
 */
public final class IdServiceClient implements AutoCloseable {

    /** Default {@link Builder#batchSize(int)}. */
    public static final int DEFAULT_BATCH_SIZE = 1000;
    /** Largest {@link Builder#batchSize(int)} and {@link #fetch} count. */
    public static final int MAX_BATCH_SIZE = 100_000;
    /** Default {@link Builder#connectTimeout(Duration)}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** Default {@link Builder#requestTimeout(Duration)}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** Default {@link Builder#failureThreshold(int)}. */
    public static final int DEFAULT_FAILURE_THRESHOLD = 3;
    /** Default {@link Builder#openDuration(Duration)}. */
    public static final Duration DEFAULT_OPEN_DURATION = Duration.ofSeconds(5);
    /** Longest duration any setting accepts; keeps every deadline far from overflowing. */
    public static final Duration MAX_DURATION = Duration.ofDays(1);

    private static final int MAX_ENTITY_LENGTH = 64;
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String appKey;
    private final int batchSize;
    private final int refillThreshold;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int failureThreshold;
    private final Duration openDuration;
    private final Duration maxWait;
    private final List<Endpoint> endpoints;
    private final FailoverFetcher fetcher;
    private final ThreadPoolExecutor refillExecutor;
    private final Map<String, EntityBuffer> buffers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private IdServiceClient(Builder b, int refillThreshold, Duration maxWait) {
        // build() refused a builder without key, secret or environments
        this.appKey = Objects.requireNonNull(b.appKey);
        this.batchSize = b.batchSize;
        this.refillThreshold = refillThreshold;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.failureThreshold = b.failureThreshold;
        this.openDuration = b.openDuration;
        this.maxWait = maxWait;
        List<URI> environments = Objects.requireNonNull(b.environments);
        List<Endpoint> list = new ArrayList<>(environments.size());
        for (URI environment : environments) {
            list.add(new Endpoint(environment, failureThreshold, openDuration.toNanos(), System::nanoTime));
        }
        this.endpoints = List.copyOf(list);
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                // HTTP/1.1: no h2c upgrade dance with plain-http environments
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.fetcher = new FailoverFetcher(new RequestSigner(appKey, Objects.requireNonNull(b.secret)), endpoints, http,
                requestTimeout);
        int client = CLIENTS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        // at most one refill per entity is in flight, so the pool is bounded by the entities in use; a fixed small
        // pool would queue one entity's refill behind another's hung request and make its callers miss maxWait
        this.refillExecutor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "idworker-client-" + client + "-refill-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** A builder with every default; {@link Builder#appKey}, {@link Builder#secret} and environments are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One ID of {@code entity} from the local buffer.
     *
     * @param entity 1 to 64 of {@code [A-Za-z0-9_.-]}
     * @throws IdServiceException when the buffer is empty and the refill waited for failed, or {@code maxWait}
     *         passed
     */
    public long nextId(String entity) {
        return buffer(entity).nextId();
    }

    /**
     * {@code count} IDs of {@code entity} from the local buffer, in the order fetched; all or none.
     *
     * @param count 1 to {@code batchSize}
     * @throws IdServiceException when the buffer holds too few and the refill waited for failed, or
     *         {@code maxWait} passed
     */
    public long[] nextIds(String entity, int count) {
        if (count < 1 || count > batchSize) {
            throw new IllegalArgumentException("count must be from 1 to batchSize " + batchSize + ", was " + count);
        }
        return buffer(entity).nextIds(count);
    }

    /**
     * {@code count} fresh IDs of {@code entity} straight from the service, in one signed request with failover and
     * no buffer; all or none. Counts in the entity's {@code httpCalls} and {@code failovers}. Ends within
     * {@code maxWait} in all: each request waits at most {@code requestTimeout} or what is left of
     * {@code maxWait}, and environments not reached by then are not tried.
     *
     * @param count 1 to {@value #MAX_BATCH_SIZE}; the service refuses more than the entity's max-per-request with
     *        400
     */
    public long[] fetch(String entity, int count) {
        checkEntity(entity);
        if (count < 1 || count > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("count must be from 1 to " + MAX_BATCH_SIZE + ", was " + count);
        }
        // one deadline for the whole failover, like a nextId's wait
        return fetcher.fetch(entity, count, buffer(entity).counters, System.nanoTime() + maxWait.toNanos(), maxWait);
    }

    /** The counters of one entity (zeros for an entity never used) with every environment's state. */
    public ClientStats stats(String entity) {
        checkEntity(entity);
        EntityBuffer buffer = buffers.get(entity);
        List<EndpointStats> endpointStats = endpointStats();
        return buffer == null ? new Counters().snapshot(0, endpointStats)
                : buffer.counters.snapshot(buffer.buffered(), endpointStats);
    }

    /** The counters summed over every entity, with every environment's state. */
    public ClientStats stats() {
        long idsServed = 0;
        long calls = 0;
        long httpCalls = 0;
        long waits = 0;
        long failovers = 0;
        long buffered = 0;
        for (EntityBuffer buffer : buffers.values()) {
            Counters c = buffer.counters;
            idsServed += c.idsServed.sum();
            calls += c.calls.sum();
            httpCalls += c.httpCalls.sum();
            waits += c.waits.sum();
            failovers += c.failovers.sum();
            buffered += buffer.buffered();
        }
        return new ClientStats(idsServed, calls, httpCalls, waits, failovers, buffered, endpointStats());
    }

    /**
     * Stops the background refills and drops every buffered ID (the service has issued them; nobody gets them).
     * Callers waiting for IDs and later calls get {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        // buffers first: a closed buffer starts no refill, so none meets the executor's rejection below and fails
        // with anything but "closed"
        for (EntityBuffer buffer : buffers.values()) {
            buffer.close();
        }
        refillExecutor.shutdownNow();
    }

    private List<EndpointStats> endpointStats() {
        List<EndpointStats> stats = new ArrayList<>(endpoints.size());
        for (Endpoint endpoint : endpoints) {
            stats.add(endpoint.stats());
        }
        return stats;
    }

    private EntityBuffer buffer(String entity) {
        checkEntity(entity);
        checkOpen();
        EntityBuffer buffer = buffers.computeIfAbsent(entity, e -> new EntityBuffer(e, batchSize, refillThreshold,
                maxWait.toNanos(), openDuration.toNanos(), fetcher, refillExecutor, this::endpointStats));
        if (closed) {
            // a buffer made while close() ran may have missed it
            buffer.close();
        }
        return buffer;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("IdServiceClient is closed");
        }
    }

    private static void checkEntity(String entity) {
        if (entity == null || entity.isEmpty() || entity.length() > MAX_ENTITY_LENGTH) {
            throw new IllegalArgumentException("entity must be 1 to " + MAX_ENTITY_LENGTH + " of [A-Za-z0-9_.-], was "
                    + (entity == null ? "null" : entity.length() + " characters"));
        }
        for (int i = 0; i < entity.length(); i++) {
            char c = entity.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.'
                    || c == '-')) {
                throw new IllegalArgumentException("entity must be 1 to " + MAX_ENTITY_LENGTH
                        + " of [A-Za-z0-9_.-], was '" + entity + "'");
            }
        }
    }

    @Override
    public String toString() {
        return "IdServiceClient[appKey=" + appKey + ", environments=" + endpoints + ", batchSize=" + batchSize
                + ", refillThreshold=" + refillThreshold + ", connectTimeout=" + connectTimeout.toMillis()
                + "ms, requestTimeout=" + requestTimeout.toMillis() + "ms, failureThreshold=" + failureThreshold
                + ", openDuration=" + openDuration.toMillis() + "ms, maxWait=" + maxWait.toMillis() + "ms]";
    }

    /**
     * Settings of an {@link IdServiceClient}. Every setter checks its own value and {@link #build()} checks how
     * they fit together; each refusal is an {@link IllegalArgumentException} whose message starts with the name of
     * the setter at fault (e.g. {@code "batchSize must be ..."}) and says what is allowed. The secret is never part
     * of a message. Not thread-safe; build once.
     */
    public static final class Builder {

        private @Nullable String appKey;
        private @Nullable String secret;
        private @Nullable List<URI> environments;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private @Nullable Integer refillThreshold;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private int failureThreshold = DEFAULT_FAILURE_THRESHOLD;
        private Duration openDuration = DEFAULT_OPEN_DURATION;
        private @Nullable Duration maxWait;

        private Builder() {
        }

        /** The application's key, sent as {@code X-App-Key}; required, printable ASCII without spaces. */
        public Builder appKey(@Nullable String appKey) {
            if (appKey == null || appKey.isEmpty()) {
                throw new IllegalArgumentException("appKey must not be blank");
            }
            for (int i = 0; i < appKey.length(); i++) {
                char c = appKey.charAt(i);
                if (c <= ' ' || c > '~') {
                    throw new IllegalArgumentException("appKey must be printable ASCII without spaces (it is sent as "
                            + "a header), found character " + (int) c + " at " + i);
                }
            }
            this.appKey = appKey;
            return this;
        }

        /**
         * The application's secret, the HMAC key of every signature, as the ID service issued it: required, 16 to 256
         * printable ASCII characters without spaces ({@link SecretForm}); never sent, printed or logged. A secret of
         * another form is refused here, since the service would refuse every call signed with it.
         */
        public Builder secret(@Nullable String secret) {
            if (secret == null || secret.isBlank()) {
                throw new IllegalArgumentException("secret must not be blank");
            }
            String problem = SecretForm.problem(secret);
            if (problem != null) {
                // the length or a position, never the secret
                throw new IllegalArgumentException("secret " + problem + "; allowed: " + SecretForm.ALLOWED);
            }
            this.secret = secret;
            return this;
        }

        /**
         * The environments' base URLs, {@code http(s)://host:port} (no path, query, fragment or user info), most
         * preferred first; at least one, no duplicates.
         */
        public Builder environments(List<URI> environments) {
            if (environments == null || environments.isEmpty()) {
                throw new IllegalArgumentException("environments must hold at least one base URL (http(s)://host:port)");
            }
            List<URI> normalised = new ArrayList<>(environments.size());
            Set<URI> seen = new HashSet<>();
            for (int i = 0; i < environments.size(); i++) {
                URI uri = normalise(environments.get(i), i);
                if (!seen.add(uri)) {
                    throw new IllegalArgumentException("environments must not repeat a base URL, " + uri
                            + " is there twice");
                }
                normalised.add(uri);
            }
            this.environments = List.copyOf(normalised);
            return this;
        }

        /** IDs per request of a refill, 1 to {@value #MAX_BATCH_SIZE}; {@value #DEFAULT_BATCH_SIZE} by default. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("batchSize must be from 1 to " + MAX_BATCH_SIZE + ", was "
                        + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * A take that leaves fewer IDs than this in an entity's buffer starts a background refill; 0 to
         * {@code batchSize}, half of {@code batchSize} by default. 0 refills only when the buffer is empty (callers
         * wait every time); {@code batchSize} keeps a whole batch in reserve.
         */
        public Builder refillThreshold(int refillThreshold) {
            if (refillThreshold < 0) {
                throw new IllegalArgumentException("refillThreshold must be from 0 to batchSize, was "
                        + refillThreshold);
            }
            this.refillThreshold = refillThreshold;
            return this;
        }

        /** Longest wait for a TCP (and TLS) connection to an environment; 1 s by default. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = checkDuration("connectTimeout", connectTimeout);
            return this;
        }

        /** Longest wait for one environment's whole answer, connecting included; 2 s by default. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = checkDuration("requestTimeout", requestTimeout);
            return this;
        }

        /** Consecutive failures that open an environment's circuit, at least 1; 3 by default. */
        public Builder failureThreshold(int failureThreshold) {
            if (failureThreshold < 1) {
                throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
            }
            this.failureThreshold = failureThreshold;
            return this;
        }

        /** How long an open circuit skips its environment before one trial request; 5 s by default. */
        public Builder openDuration(Duration openDuration) {
            this.openDuration = checkDuration("openDuration", openDuration);
            return this;
        }

        /**
         * Longest a {@code nextId}/{@code nextIds} call waits for a refill when the buffer holds too few, and
         * longest a {@link IdServiceClient#fetch} takes across all its environments; by default
         * {@code requestTimeout} × the number of environments + 1 s, enough for a refill that tries every
         * environment.
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = checkDuration("maxWait", maxWait);
            return this;
        }

        /**
         * @throws IllegalArgumentException naming {@code appKey}, {@code secret} or {@code environments} when one
         *         was not set, or {@code refillThreshold} when it exceeds {@code batchSize}
         */
        public IdServiceClient build() {
            if (appKey == null) {
                throw new IllegalArgumentException("appKey must be set");
            }
            if (secret == null) {
                throw new IllegalArgumentException("secret must be set");
            }
            if (environments == null) {
                throw new IllegalArgumentException("environments must be set (at least one base URL)");
            }
            int threshold = refillThreshold != null ? refillThreshold : batchSize / 2;
            if (threshold > batchSize) {
                throw new IllegalArgumentException("refillThreshold must be from 0 to batchSize " + batchSize
                        + ", was " + threshold);
            }
            Duration wait = maxWait != null ? maxWait
                    : requestTimeout.multipliedBy(environments.size()).plusSeconds(1);
            return new IdServiceClient(this, threshold, wait);
        }

        private static Duration checkDuration(String name, Duration value) {
            if (value == null || value.compareTo(Duration.ofMillis(1)) < 0 || value.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException(name + " must be from 1ms to " + MAX_DURATION.toHours()
                        + "h, was " + (value == null ? "null" : value.toMillis() + "ms"));
            }
            return value;
        }

        /** {@code scheme://host[:port]} in lower-case scheme; refuses everything the signed path cannot carry. */
        private static URI normalise(URI uri, int index) {
            String name = "environments[" + index + "]";
            if (uri == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
            // checked first and never echoed: user info may hold a password
            if (uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException(name + " must not hold user info (user:password@); the service "
                        + "authenticates by signature");
            }
            String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null) {
                throw new IllegalArgumentException(name + " must be an http or https URL with a host, "
                        + "http(s)://host:port");
            }
            String authority = scheme + "://" + uri.getRawAuthority();
            String path = uri.getRawPath();
            if (path != null && !path.isEmpty() && !path.equals("/") || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                throw new IllegalArgumentException(name + " must be scheme://host:port without path, query or "
                        + "fragment (the signed path starts at /pools), was " + authority + " with more after it");
            }
            return URI.create(authority);
        }
    }
}
