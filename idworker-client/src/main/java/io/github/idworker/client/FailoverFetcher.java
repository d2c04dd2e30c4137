package io.github.idworker.client;

import io.github.idworker.signing.RequestSigner;
import org.jspecify.annotations.Nullable;

import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One fetch of IDs with failover: the environments in preference order, each request signed afresh, each answer
 * classified. Guarantees: a fetch returns exactly the IDs one environment answered with, all of the split that
 * environment reports and no other environment of this client reports, or throws; it sends at most one request per
 * environment; 400 and 403 end it at once. Thread-safe.
 *
 * <p>Steps of {@link #fetch}:
 * <ol>
 *   <li>for each environment in order: skip it when its circuit is OPEN and its period has not passed, or a trial
 *       is in flight (HALF_OPEN);</li>
 *   <li>sign {@code GET /pools/{entity}/ids?count=N} with a fresh timestamp and nonce and send it, bounded by the
 *       request timeout;</li>
 *   <li>200 with exactly {@code count} distinct IDs, all of the split its {@code X-Id-Environment} reports and
 *       that split consistent with the other environments' ({@link EnvironmentSplits}): the environment answered;
 *       return them;</li>
 *   <li>400, 403: the environment answered; throw {@link IdServiceRefusedException} at once — the request itself
 *       or the application's rights are at fault, the same in every environment, so no failover;</li>
 *   <li>401, 404: the environment answered, but from what is its own — its clock (timestamp), its Redis (replay),
 *       its application and entity tables (signature, unknown entity) — so another may serve: count a failure
 *       against its circuit, note the refusal and go on to the next one;</li>
 *   <li>429: the environment answered; note its retry-after and go on to the next one (limits are per
 *       environment);</li>
 *   <li>anything else — connection error, timeout, 5xx, another status, a malformed 200, a 200 whose split is
 *       missing, malformed, not that of its IDs or in conflict with another environment's — is a failure of the
 *       environment: count it against its circuit and go on;</li>
 *   <li>after the last environment, every outcome listed in the message: {@link IdServiceRateLimitedException}
 *       when any said 429; else, when any refused (so every one that answered refused), that refusal — the first
 *       401, else {@link UnknownEntityException} of the first 404; else {@link IdServiceUnavailableException}.</li>
 * </ol>
 * When every circuit is open the fetch fails at once without a request: a service that failed everywhere is
 * spared the load of every client's retries, and it is tried again as soon as the first open period ends.
 *
 * <p>A fetch with a deadline (a caller's {@link IdServiceClient#fetch}, bounded by {@code maxWait}) ends by it:
 * each request waits at most the smaller of {@code requestTimeout} and the time left; a request cut short by the
 * deadline (not by its own timeout) counts no failure against its environment's circuit, and environments not
 * reached before it are not tried ({@code "not tried: maxWait passed"} in the message). A refill has no deadline
 * of its own: its waiting callers are bounded by {@code maxWait} in {@link EntityBuffer}, and it goes on for the
 * callers after them.
 */
final class FailoverFetcher {

    private static final int MAX_PROBLEM_TEXT = 200;

    private final RequestSigner signer;
    private final List<Endpoint> endpoints;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final EnvironmentSplits splits;

    FailoverFetcher(RequestSigner signer, List<Endpoint> endpoints, HttpClient http, Duration requestTimeout) {
        this.signer = signer;
        this.endpoints = endpoints;
        this.splits = new EnvironmentSplits(endpoints);
        this.http = http;
        this.requestTimeout = requestTimeout;
    }

    /** What one environment did with one request. */
    private sealed interface Outcome permits Served, RateLimited, Refused, Failed, OutOfTime {
    }

    private record Served(long[] ids) implements Outcome {
    }

    /** @param retryAfter null when the environment did not say */
    private record RateLimited(@Nullable Duration retryAfter, String description) implements Outcome {
    }

    /** 401 or 404: this environment's clock, nonces, applications or entities; another may serve. */
    private record Refused(Endpoint endpoint, int status, @Nullable String title, @Nullable String detail,
                           String description) implements Outcome {
    }

    private record Failed(String description) implements Outcome {
    }

    /** The request was cut short by the fetch's deadline, not by its own timeout: no fault of the environment. */
    private record OutOfTime(String description) implements Outcome {
    }

    /** A fetch without a deadline: every environment gets up to {@code requestTimeout}. */
    long[] fetch(String entity, int count, Counters counters) {
        return fetch(entity, count, counters, 0, null);
    }

    /**
     * A fetch that ends by {@code deadlineNanos} ({@link System#nanoTime()}); {@code maxWait} names the setting in
     * the message.
     */
    long[] fetch(String entity, int count, Counters counters, long deadlineNanos, @Nullable Duration maxWait) {
        String path = "/pools/" + entity + "/ids";
        String query = "count=" + count;
        List<String> outcomes = new ArrayList<>(endpoints.size());
        Duration retryAfter = null;
        boolean rateLimited = false;
        Refused refused = null;
        boolean passedOver = false;
        boolean outOfTime = false;
        for (Endpoint endpoint : endpoints) {
            long left = maxWait == null ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
            if (left <= 0) {
                outcomes.add(endpoint + ": not tried, maxWait passed");
                outOfTime = true;
                continue;
            }
            if (!endpoint.tryAcquire()) {
                outcomes.add(endpoint + ": " + endpoint.skipped());
                passedOver = true;
                continue;
            }
            if (passedOver) {
                counters.failovers.increment();
            }
            Outcome outcome = send(endpoint, entity, path, query, count, counters, left);
            if (outcome instanceof Served served) {
                return served.ids();
            }
            passedOver = true;
            if (outcome instanceof RateLimited limited) {
                rateLimited = true;
                outcomes.add(endpoint + ": " + limited.description());
                if (limited.retryAfter() != null && (retryAfter == null || limited.retryAfter().compareTo(retryAfter) < 0)) {
                    retryAfter = limited.retryAfter();
                }
            } else if (outcome instanceof Refused refusal) {
                outcomes.add(endpoint + ": " + refusal.description());
                // the first 401 wins over any 404: an entity unknown in one environment is not unknown everywhere
                if (refused == null || refused.status() == 404 && refusal.status() != 404) {
                    refused = refusal;
                }
            } else if (outcome instanceof OutOfTime cut) {
                outOfTime = true;
                outcomes.add(endpoint + ": " + cut.description());
            } else {
                outcomes.add(endpoint + ": " + ((Failed) outcome).description());
            }
        }
        String request = "GET " + path + "?" + query;
        String each = String.join("; ", outcomes);
        if (rateLimited) {
            Duration wait = retryAfter != null ? retryAfter : Duration.ofSeconds(1);
            String limited = refused == null ? "every environment that answered " + request + " is rate-limiting it"
                    : "no environment of the ID service served " + request + ", and some are rate-limiting it";
            throw new IdServiceRateLimitedException("entity '" + entity + "': " + limited + "; retry after "
                    + wait.toMillis() + " ms — " + each, wait);
        }
        if (refused != null) {
            throw refusedEverywhere(entity, request, refused, each);
        }
        // only a fetch with a maxWait runs out of time
        throw new IdServiceUnavailableException("entity '" + entity + "': no environment of the ID service served "
                + request + (outOfTime ? " within " + Objects.requireNonNull(maxWait).toMillis() + " ms (maxWait)" : "")
                + " — " + each);
    }

    /** @param left nanoseconds to the fetch's deadline, {@link Long#MAX_VALUE} for none */
    private Outcome send(Endpoint endpoint, String entity, String path, String query, int count, Counters counters,
                         long left) {
        // the request's own timeout, or what is left of the caller's maxWait when that is shorter
        boolean cut = left < requestTimeout.toNanos();
        Duration timeout = cut ? Duration.ofNanos(left) : requestTimeout;
        HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint.uri(path, query))
                .timeout(timeout)
                .header("Accept", "application/json, application/problem+json")
                .GET();
        // signed here, per request: a retry or a failover must not reuse a nonce
        signer.sign("GET", path, query).forEach(builder::header);
        endpoint.countCall();
        counters.httpCalls.increment();
        CompletableFuture<HttpResponse<String>> future =
                http.sendAsync(builder.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        HttpResponse<String> response;
        try {
            // the request timeout covers the wait for the headers; this bound covers a body that stalls too
            response = future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            return cut ? outOfTime(endpoint, timeout) : failed(endpoint, "timed out after " + requestTimeout.toMillis()
                    + " ms");
        } catch (ExecutionException e) {
            if (cut && e.getCause() instanceof HttpTimeoutException
                    && !(e.getCause() instanceof HttpConnectTimeoutException)) {
                return outOfTime(endpoint, timeout);
            }
            // a future fails with an ExecutionException that carries the failure
            return failed(endpoint, describe(Objects.requireNonNull(e.getCause())));
        } catch (InterruptedException e) {
            future.cancel(true);
            endpoint.abandoned();
            Thread.currentThread().interrupt();
            throw new IdServiceException("entity '" + entity + "': interrupted while fetching IDs from " + endpoint, e);
        }
        int status = response.statusCode();
        if (status == 200) {
            long[] ids;
            try {
                ids = Json.idArray(response.body(), count);
            } catch (Json.MalformedJsonException e) {
                return failed(endpoint, "HTTP 200 with a malformed body: " + e.getMessage());
            }
            try {
                splits.check(endpoint, response.headers().allValues(EnvironmentSplit.HEADER), ids);
            } catch (EnvironmentSplits.RefusedSplitException e) {
                return failed(endpoint, "HTTP 200, IDs not used: " + e.getMessage());
            }
            endpoint.answered();
            return new Served(ids);
        }
        Map<String, @Nullable Object> problem = problem(response.body());
        if (status == 400 || status == 403) {
            endpoint.answered();
            throw refusedAtOnce(endpoint, entity, path + "?" + query, status, problem);
        }
        if (status == 401 || status == 404) {
            String title = text(problem, "title");
            String detail = text(problem, "detail");
            String description = describe(status, title, detail);
            endpoint.failed(description);
            return new Refused(endpoint, status, title, detail, description);
        }
        if (status == 429) {
            endpoint.answered();
            Duration retryAfter = retryAfter(response, problem);
            Object limit = problem.get("limit");
            return new RateLimited(retryAfter, "429" + (limit instanceof String s ? " (" + clean(s) + " limit)" : "")
                    + (retryAfter != null ? ", retry after " + retryAfter.toMillis() + " ms" : ""));
        }
        String title = text(problem, "title");
        return failed(endpoint, "HTTP " + status + (title != null ? " " + title : ""));
    }

    /** Cut short by the caller's maxWait: the environment's circuit neither fails nor keeps a trial for it. */
    private static OutOfTime outOfTime(Endpoint endpoint, Duration waited) {
        endpoint.abandoned();
        return new OutOfTime("no answer within the " + Math.max(1, waited.toMillis()) + " ms left of maxWait");
    }

    private static Failed failed(Endpoint endpoint, String description) {
        endpoint.failed(description);
        return new Failed(description);
    }

    /** 400 or 403: the request itself or the application's rights are at fault, the same in every environment. */
    private static IdServiceRefusedException refusedAtOnce(Endpoint endpoint, String entity, String request,
                                                           int status, Map<String, @Nullable Object> problem) {
        String title = text(problem, "title");
        String detail = text(problem, "detail");
        return new IdServiceRefusedException("entity '" + entity + "': the ID service refused GET " + request + " with "
                + describe(status, title, detail) + " (" + endpoint + "; the same in every environment, so "
                + "not failed over)", status, title, detail);
    }

    /** Every environment that answered said 401 or 404; the others failed or were skipped ({@code each} says). */
    private static IdServiceRefusedException refusedEverywhere(String entity, String request, Refused refused,
                                                               String each) {
        if (refused.status() == 404) {
            return new UnknownEntityException("entity '" + entity + "' is unknown to the ID service: " + request
                    + " answered " + refused.description() + " by " + refused.endpoint() + ", and every environment "
                    + "that answered refused it — " + each, entity, refused.title(), refused.detail());
        }
        return new IdServiceRefusedException("entity '" + entity + "': the ID service refused " + request + " with "
                + refused.description() + " (" + refused.endpoint() + "), and every environment that answered refused "
                + "it — " + each, refused.status(), refused.title(), refused.detail());
    }

    private static String describe(int status, @Nullable String title, @Nullable String detail) {
        return status + (title != null ? " " + title : "") + (detail != null ? ", detail '" + detail + "'" : "");
    }

    /** {@code retryAfterMillis} of the problem document, else the {@code Retry-After} header in seconds. */
    private static @Nullable Duration retryAfter(HttpResponse<?> response, Map<String, @Nullable Object> problem) {
        Object millis = problem.get("retryAfterMillis");
        if (millis instanceof Number n && n.doubleValue() >= 0) {
            return Duration.ofMillis((long) Math.ceil(n.doubleValue()));
        }
        Optional<String> header = response.headers().firstValue("Retry-After");
        if (header.isPresent()) {
            try {
                long seconds = Long.parseLong(header.get().trim());
                if (seconds >= 0) {
                    return Duration.ofSeconds(seconds);
                }
            } catch (NumberFormatException httpDate) {
                // the protocol sends whole seconds; a date is not worth a parser here
            }
        }
        return null;
    }

    /** The problem document of an error answer, or an empty map when the body is not one. */
    private static Map<String, @Nullable Object> problem(String body) {
        if (body == null || body.isBlank()) {
            return Map.of();
        }
        try {
            return Json.object(body);
        } catch (Json.MalformedJsonException e) {
            return Map.of();
        }
    }

    private static @Nullable String text(Map<String, @Nullable Object> problem, String name) {
        return problem.get(name) instanceof String s ? clean(s) : null;
    }

    /** Server text bound for a message or a log line: no control characters (no forged log lines), bounded. */
    static String clean(String s) {
        String printable = s.replaceAll("\\p{Cntrl}", " ");
        return printable.length() <= MAX_PROBLEM_TEXT ? printable : printable.substring(0, MAX_PROBLEM_TEXT) + "…";
    }

    /** A transport failure as its class and the first message in its chain (the JDK often leaves the top one null). */
    private String describe(Throwable failure) {
        if (failure instanceof HttpConnectTimeoutException) {
            return "connect timed out";
        }
        if (failure instanceof HttpTimeoutException) {
            return "timed out after " + requestTimeout.toMillis() + " ms";
        }
        String message = null;
        for (Throwable t = failure; t != null && message == null; t = t.getCause()) {
            message = t.getMessage();
        }
        return failure.getClass().getSimpleName() + (message != null ? ": " + message : "");
    }
}
