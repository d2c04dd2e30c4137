package io.github.idworker.server;

import io.github.idworker.format.IdFormats;
import io.github.idworker.service.UnauthorizedException;
import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The signed pool endpoint of two instances sharing one database and one Redis, over real HTTP: every unsigned,
 * wrong-key, tampered, expired, replayed, forbidden and over-limit call is refused with its status and a problem
 * document, before any ID is taken; a replay sent to the other instance is refused too; valid calls succeed; no
 * response ever carries a secret. Subclasses provide the environment (embedded, or real servers).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class AbstractPoolServiceAuthTest {

    static final String PATH = "/pools/orders/ids";
    static final String SECRET = "alpha-secret-0123456789abcdef";
    static final String NARROW_SECRET = "narrow-secret-0123456789abcdef";
    static final String OFF_SECRET = "off-secret-0123456789abcdef";
    static final String RATED_SECRET = "rated-secret-0123456789abcdef";
    static final String STAR_SECRET = "star-secret-0123456789abcdef";
    static final String NEW_SECRET = "rotating-new-0123456789abcdef";
    static final String OLD_SECRET = "rotating-old-0123456789abcdef";
    static final List<String> SECRETS = List.of(SECRET, NARROW_SECRET, OFF_SECRET, RATED_SECRET, STAR_SECRET,
            NEW_SECRET, OLD_SECRET);

    private ServiceEnvironment environment;
    private int first;
    private int second;
    private final RequestSigner alpha = new RequestSigner("alpha", SECRET);
    /** Every response body seen, checked for secrets at the end. */
    private final List<String> bodies = new ArrayList<>();
    /** Every ID handed out by either instance, per entity: IDs are unique within an entity. */
    private final Map<String, Set<Long>> issued = new HashMap<>();
    private int refused;
    /** Each instance's count of refusals by rule, by port: the rule is only told there, never to the caller. */
    private final Map<Integer, UnauthorizedCalls> unauthorizedCalls = new HashMap<>();

    abstract ServiceEnvironment environment() throws Exception;

    @BeforeAll
    void startTwoInstances() throws Exception {
        environment = environment();
        String[] arguments = {
                "--idworker.pool.entities.orders.max-per-second=100000",
                "--idworker.pool.entities.slow.max-per-second=3", "--idworker.pool.entities.slow.max-per-request=3",
                "--idworker.pool.entities.slow.step=10", "--idworker.pool.entities.slow.max-pool-size=100",
                "--idworker.pool.entities.tiny.max-per-request=100", "--idworker.pool.entities.tiny.step=10",
                "--idworker.pool.entities.tiny.max-pool-size=100", "--idworker.pool.entities.tiny.threshold-percent=50",
                "--idworker.pool.entities.tiny.check-interval=1h",
                "--idworker.service.apps.alpha.secret=" + SECRET, "--idworker.service.apps.alpha.entities=orders,slow,tiny",
                "--idworker.service.apps.narrow.secret=" + NARROW_SECRET, "--idworker.service.apps.narrow.entities=slow",
                "--idworker.service.apps.off.secret=" + OFF_SECRET, "--idworker.service.apps.off.entities=*",
                "--idworker.service.apps.off.enabled=false",
                "--idworker.service.apps.rated.secret=" + RATED_SECRET, "--idworker.service.apps.rated.entities=orders",
                "--idworker.service.apps.rated.max-per-second=5",
                "--idworker.service.apps.star.secret=" + STAR_SECRET, "--idworker.service.apps.star.entities=*",
                "--idworker.service.apps.rotating.secret=" + NEW_SECRET,
                "--idworker.service.apps.rotating.previous-secret=" + OLD_SECRET,
                "--idworker.service.apps.rotating.entities=orders"};
        ConfigurableApplicationContext one = environment.start(arguments);
        ConfigurableApplicationContext two = environment.start(arguments);
        first = ServiceEnvironment.port(one);
        second = ServiceEnvironment.port(two);
        unauthorizedCalls.put(first, one.getBean(UnauthorizedCalls.class));
        unauthorizedCalls.put(second, two.getBean(UnauthorizedCalls.class));
        // both instances serve the pool before the tests begin: a node's first take waits until it has checked the
        // pool against the table, which cannot finish while the other node appends its startup refill (a million
        // IDs here, which can outlast max-wait on a loaded machine: HTTP 503, retry later)
        for (int port : List.of(first, second)) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> send(port, PATH, alpha.sign("GET", PATH, "")).status() == 200);
        }
    }

    /** After every test of the class: no response body carried a secret; then both instances stop. */
    @AfterAll
    void noResponseCarriedASecretThenStop() throws Exception {
        try {
            assertThat(bodies).isNotEmpty();
            for (String body : bodies) {
                for (String secret : SECRETS) {
                    assertThat(body).doesNotContain(secret);
                }
            }
        } finally {
            if (environment != null) {
                environment.close();
            }
        }
    }

    private SignedHttp.Response send(int port, String pathAndQuery, Map<String, String> headers) throws Exception {
        SignedHttp.Response response = SignedHttp.get(port, pathAndQuery, headers);
        bodies.add(response.text());
        if (response.status() == 200) {
            String entity = pathAndQuery.split("/")[2];
            for (long id : response.ids()) {
                assertThat(issued.computeIfAbsent(entity, e -> new HashSet<>()).add(id))
                        .as("ID %d of entity %s handed out twice", id, entity).isTrue();
            }
        }
        return response;
    }

    /**
     * Sends a request that must be refused with {@code status}; a 401 says "unauthorized" and nothing else, and the
     * instance counts it under {@code reason}.
     */
    private SignedHttp.Response refused(int port, String pathAndQuery, Map<String, String> headers, int status,
                                        String reason) throws Exception {
        UnauthorizedCalls counts = unauthorizedCalls.get(port);
        Map<UnauthorizedException.Reason, Long> before = new EnumMap<>(UnauthorizedException.Reason.class);
        for (UnauthorizedException.Reason r : UnauthorizedException.Reason.values()) {
            before.put(r, counts.count(r));
        }
        SignedHttp.Response response = send(port, pathAndQuery, headers);
        assertThat(response.status()).as("status of %s with %s: %s", pathAndQuery, headers.keySet(), response.text())
                .isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        if (status == 401) {
            assertThat(response.problem("detail")).isEqualTo("unauthorized");
            assertThat(response.problem("title")).isEqualTo("Unauthorized");
            assertThat(response.problem("reason")).as("the rule that refused the call is not told").isNull();
        }
        for (UnauthorizedException.Reason r : UnauthorizedException.Reason.values()) {
            long expected = before.get(r) + (status == 401 && r.code().equals(reason) ? 1 : 0);
            assertThat(counts.count(r)).as("refusals counted as %s after %s", r.code(), pathAndQuery).isEqualTo(expected);
        }
        refused++;
        return response;
    }

    private static Map<String, String> with(Map<String, String> headers, UnaryOperator<Map<String, String>> change) {
        return change.apply(new LinkedHashMap<>(headers));
    }

    @Test
    void everyForgedTamperedExpiredOrReplayedCallIsRefusedAndValidCallsSucceed() throws Exception {
        // a valid call on each instance
        SignedHttp.Response ok = send(first, PATH + "?count=3", alpha.sign("GET", PATH, "count=3"));
        assertThat(ok.status()).as(ok.text()).isEqualTo(200);
        assertThat(ok.ids()).hasSize(3);
        assertThat(ok.environment()).isEqualTo("0/1");
        assertThat(send(second, PATH, alpha.sign("GET", PATH, "")).ids()).hasSize(1);

        Map<String, String> valid = alpha.sign("GET", PATH, "count=2");
        String q = PATH + "?count=2";
        // unsigned, and each header missing or blank
        refused(first, q, Map.of(), 401, "missing-header");
        for (String header : List.of(RequestSigner.APP_KEY, RequestSigner.TIMESTAMP, RequestSigner.NONCE,
                RequestSigner.SIGNATURE)) {
            refused(first, q, with(valid, h -> { h.remove(header); return h; }), 401, "missing-header");
        }
        refused(first, q, with(valid, h -> { h.put(RequestSigner.SIGNATURE, " "); return h; }), 401, "missing-header");
        // wrong key: unknown, disabled, wrong secret — all alike
        refused(first, q, new RequestSigner("nobody", SECRET).sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, q, new RequestSigner("off", OFF_SECRET).sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, q, new RequestSigner("alpha", SECRET + "x").sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, q, new RequestSigner("alpha", NARROW_SECRET).sign("GET", PATH, "count=2"), 401, "signature");
        // tampered: method, path, query (changed, added, removed), timestamp, nonce, signature
        refused(first, q, alpha.sign("POST", PATH, "count=2"), 401, "signature");
        refused(first, q, alpha.sign("GET", "/pools/slow/ids", "count=2"), 401, "signature");
        refused(first, PATH + "?count=3", alpha.sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, q + "&extra=1", alpha.sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, PATH, alpha.sign("GET", PATH, "count=2"), 401, "signature");
        refused(first, q, with(valid, h -> {
            h.put(RequestSigner.TIMESTAMP, Long.toString(Long.parseLong(h.get(RequestSigner.TIMESTAMP)) + 1));
            return h;
        }), 401, "signature");
        refused(first, q, with(valid, h -> { h.put(RequestSigner.NONCE, RequestSigner.newNonce()); return h; }), 401,
                "signature");
        refused(first, q, with(valid, h -> { h.put(RequestSigner.SIGNATURE, flip(h.get(RequestSigner.SIGNATURE)));
            return h; }), 401, "signature");
        refused(first, q, with(valid, h -> { h.put(RequestSigner.SIGNATURE, "not base64 at all!"); return h; }), 401,
                "signature");
        // expired and from the future, properly signed; a timestamp that is no number
        long now = System.currentTimeMillis();
        refused(first, q, alpha.sign("GET", PATH, "count=2", now - 305_000, RequestSigner.newNonce()), 401, "timestamp");
        refused(first, q, alpha.sign("GET", PATH, "count=2", now + 305_000, RequestSigner.newNonce()), 401, "timestamp");
        refused(first, q, with(valid, h -> { h.put(RequestSigner.TIMESTAMP, "yesterday"); return h; }), 401,
                "timestamp");
        // nonces too short and of other characters, properly signed
        refused(first, q, alpha.sign("GET", PATH, "count=2", now, "short-nonce"), 401, "nonce");
        refused(first, q, alpha.sign("GET", PATH, "count=2", now, "nonce.with.dots.0123456"), 401, "nonce");
        // the valid call once, then replayed to the same and to the other instance
        assertThat(send(first, q, valid).ids()).hasSize(2);
        refused(first, q, valid, 401, "replay");
        refused(second, q, valid, 401, "replay");
        Map<String, String> onSecond = alpha.sign("GET", PATH, "count=1");
        assertThat(send(second, PATH + "?count=1", onSecond).ids()).hasSize(1);
        refused(first, PATH + "?count=1", onSecond, 401, "replay");
        // an entity the application may not take from; a replay of that call is a replay
        Map<String, String> forbidden = new RequestSigner("narrow", NARROW_SECRET).sign("GET", PATH, "count=1");
        SignedHttp.Response no = refused(first, PATH + "?count=1", forbidden, 403, null);
        assertThat(no.problem("entity")).isEqualTo("orders");
        refused(second, PATH + "?count=1", forbidden, 401, "replay");
        // unknown entity for an application allowed every entity; malformed and too large counts
        refused(first, "/pools/nothing/ids", new RequestSigner("star", STAR_SECRET).sign("GET", "/pools/nothing/ids", ""),
                404, null);
        refused(first, PATH + "?count=many", alpha.sign("GET", PATH, "count=many"), 400, null);
        refused(first, "/pools/tiny/ids?count=101", alpha.sign("GET", "/pools/tiny/ids", "count=101"), 400, null);

        assertThat(refused).as("distinct bad requests tried").isGreaterThanOrEqualTo(25);
    }

    @Test
    void theApplicationsAndTheEntitysLimitsAnswer429WithRetryAfterAcrossBothInstances() throws Exception {
        RequestSigner rated = new RequestSigner("rated", RATED_SECRET);
        SignedHttp.Response limited = null;
        // 5 IDs per second for the application, counted across both instances: 3 + 3 cannot pass in one second
        for (int i = 0; i < 10 && limited == null; i++) {
            SignedHttp.Response r = send(i % 2 == 0 ? first : second, PATH + "?count=3", rated.sign("GET", PATH, "count=3"));
            if (r.status() == 429) {
                limited = r;
            } else {
                assertThat(r.status()).as(r.text()).isEqualTo(200);
            }
        }
        assertThat(limited).as("a 429 within 10 calls of 3 IDs at 5 IDs per second").isNotNull();
        assertThat(limited.problem("limit")).isEqualTo("app");
        assertThat(Integer.parseInt(limited.retryAfter())).isBetween(1, 1);
        assertThat(limited.json().get("retryAfterMillis").asLong()).isBetween(1L, 1000L);

        limited = null;
        for (int i = 0; i < 10 && limited == null; i++) {
            SignedHttp.Response r = send(i % 2 == 0 ? first : second, "/pools/slow/ids?count=2",
                    alpha.sign("GET", "/pools/slow/ids", "count=2"));
            if (r.status() == 429) {
                limited = r;
            } else {
                assertThat(r.status()).as(r.text()).isEqualTo(200);
            }
        }
        assertThat(limited).as("a 429 within 10 calls of 2 IDs at 3 IDs per second").isNotNull();
        assertThat(limited.problem("limit")).isEqualTo("entity");
        assertThat(limited.retryAfter()).isEqualTo("1");
    }

    @Test
    void anEmptyPoolAnswers503WithRetryAfterAndNeverAShortAnswer() throws Exception {
        String tiny = "/pools/tiny/ids";
        SignedHttp.Response empty = null;
        for (int i = 0; i < 20 && empty == null; i++) {
            SignedHttp.Response r = send(i % 2 == 0 ? first : second, tiny + "?count=100",
                    alpha.sign("GET", tiny, "count=100"));
            if (r.status() == 503) {
                empty = r;
            } else {
                assertThat(r.status()).as(r.text()).isEqualTo(200);
                assertThat(r.ids()).as("never a short answer").hasSize(100);
            }
        }
        assertThat(empty).as("a 503 within 20 calls taking the whole pool").isNotNull();
        assertThat(empty.problem("title")).isEqualTo("ID pool empty");
        assertThat(empty.retryAfter()).isEqualTo("1");
    }

    @Test
    void asStringIsSignedLikeAnyQueryAndAnswersStrings() throws Exception {
        String query = "as=string&count=2";
        SignedHttp.Response r = send(first, PATH + "?" + query, alpha.sign("GET", PATH, query));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().size()).isEqualTo(2);
        for (var id : r.json()) {
            assertThat(id.isString()).as(r.text()).isTrue();
            assertThat(id.asString()).matches("[1-9][0-9]*");
        }
        // signed without the as parameter, sent with it: the query differs, refused like any tampering
        refused(first, PATH + "?" + query, alpha.sign("GET", PATH, "count=2"), 401, "signature");

        // another string form: sent past send(), whose duplicate check reads decimal only, and checked here
        String fixed = "as=base62-fixed&count=2";
        SignedHttp.Response formed = SignedHttp.get(first, PATH + "?" + fixed, alpha.sign("GET", PATH, fixed));
        bodies.add(formed.text());
        assertThat(formed.status()).as(formed.text()).isEqualTo(200);
        assertThat(formed.json().size()).isEqualTo(2);
        for (var id : formed.json()) {
            assertThat(id.asString()).as(formed.text()).hasSize(11);
            long value = IdFormats.base62Fixed().parse(id.asString());
            assertThat(value).isPositive();
            assertThat(issued.computeIfAbsent("orders", e -> new HashSet<>()).add(value))
                    .as("ID %d of entity orders handed out twice", value).isTrue();
        }
    }

    @Test
    void duringARotationBothSecretsPass() throws Exception {
        for (String secret : List.of(NEW_SECRET, OLD_SECRET)) {
            SignedHttp.Response r = send(second, PATH, new RequestSigner("rotating", secret).sign("GET", PATH, ""));
            assertThat(r.status()).as(r.text()).isEqualTo(200);
        }
        refused(second, PATH, new RequestSigner("rotating", SECRET).sign("GET", PATH, ""), 401, "signature");
    }

    private static String flip(String signature) {
        char[] chars = signature.toCharArray();
        chars[5] = chars[5] == 'A' ? 'B' : 'A';
        return new String(chars);
    }

}
