package io.github.idworker.test.service;

import io.github.idworker.service.AppRateLimitedException;
import io.github.idworker.service.EntityForbiddenException;
import io.github.idworker.service.RequestAuthenticator;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import io.github.idworker.service.UnauthorizedException;
import io.github.idworker.service.UnauthorizedException.Reason;
import io.github.idworker.service.jdbc.JdbcAppStore;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import io.github.idworker.test.service.redis.RedisRequestGateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RequestAuthenticator} over real parts: applications in H2 ({@link JdbcAppStore}) behind
 * {@link ServiceApps}, nonces and rates in the embedded Redis, calls signed by {@link RequestSigner}. A call
 * passes only when signed by a current secret of an enabled application, fresh, never seen, for an entity the
 * application may take from and within its own limit; every refusal has its exact reason, and an unauthorized
 * one says only "unauthorized". Refused calls before the gate do not use up their nonce.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestAuthenticatorTest {

    private static final String PATH = "/pools/user/ids";
    private static final String QUERY = "count=3";
    private static final Duration WINDOW = Duration.ofMinutes(5);

    // the service's clock runs a window ahead of the embedded Redis, started moments ago: a call stamped before a
    // store's start (plus the reset guard, none here) is refused as a possible replay of a nonce it lost
    private final ManualClock clock = new ManualClock(System.currentTimeMillis() + WINDOW.toMillis() + 60_000);
    private JdbcAppStoreStore db;
    private RedisRequestGateStore redis;
    private ServiceApps apps;
    private RequestAuthenticator authenticator;
    private ServiceApp demo;
    private final List<String> secrets = new ArrayList<>();

    @BeforeEach
    void open() {
        db = new JdbcAppStoreStore("jdbc:h2:mem:authenticator;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
        redis = new RedisRequestGateStore(EmbeddedRedisSupport::newClient);
        apps = new ServiceApps(db.newStore(), Duration.ofMinutes(1));
        demo = ServiceApp.builder("demo-" + UUID.randomUUID().toString().substring(0, 8)).secret(newSecret())
                .entities("user", "order").maxPerSecond(1_000).build();
        apps.register(demo);
        authenticator = newAuthenticator();
    }

    @AfterEach
    void close() throws Exception {
        apps.close();
        try {
            redis.close();
        } finally {
            db.close();
        }
    }

    private RequestAuthenticator newAuthenticator() {
        return new RequestAuthenticator(apps, redis.newGate(), WINDOW, RequestAuthenticator.DEFAULT_CLOCK_TOLERANCE,
                Duration.ZERO, clock::millis);
    }

    private String newSecret() {
        String secret = "S3cret_" + UUID.randomUUID().toString().replace("-", "");
        secrets.add(secret);
        return secret;
    }

    /** Headers of a call signed now (by the server's clock) with a fresh nonce. */
    private static Map<String, String> signed(ServiceApp app, String secret, String method, String path,
                                              String query, long timestamp) {
        return new RequestSigner(app.appKey(), secret).sign(method, path, query, timestamp, RequestSigner.newNonce());
    }

    private Map<String, String> signed(ServiceApp app) {
        return signed(app, app.secret(), "GET", PATH, QUERY, clock.millis());
    }

    private ServiceApp authenticate(Map<String, String> headers, String method, String path, String query,
                                    String entity, int count) {
        Map<String, String> received = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        received.putAll(headers);
        return authenticator.authenticate(method, path, query, received::get, entity, count);
    }

    private ServiceApp authenticate(Map<String, String> headers) {
        return authenticate(headers, "GET", PATH, QUERY, "user", 3);
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> changed = new TreeMap<>(headers);
        if (value == null) {
            changed.remove(name);
        } else {
            changed.put(name, value);
        }
        return changed;
    }

    /** Asserts that the call is refused as unauthorized for {@code reason}, with no more than "unauthorized". */
    private void refused(Reason reason, Runnable call) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> assertThat(e.getReason()).isEqualTo(reason))
                .hasMessage("unauthorized");
    }

    @Test
    void aValidCallPassesAndReturnsItsApplication() {
        ServiceApp app = authenticate(signed(demo));
        assertThat(app.sameAs(demo)).as("%s", app).isTrue();
        Map<String, String> lowerCase = new TreeMap<>();
        signed(demo).forEach((k, v) -> lowerCase.put(k.toLowerCase(), v));
        assertThat(authenticate(lowerCase).appKey()).as("header names in any case").isEqualTo(demo.appKey());
    }

    @Test
    void everyAlteredPartIsRefusedWithItsReasonAndTheGenuineCallStillPasses() {
        Map<String, String> h = signed(demo);
        String nonce = h.get(RequestSigner.NONCE);
        String signature = h.get(RequestSigner.SIGNATURE);
        long timestamp = Long.parseLong(h.get(RequestSigner.TIMESTAMP));
        ServiceApp other = ServiceApp.builder(demo.appKey() + "-2").secret(newSecret()).entities("*").build();
        apps.register(other);

        refused(Reason.SIGNATURE, () -> authenticate(h, "POST", PATH, QUERY, "user", 3));
        refused(Reason.SIGNATURE, () -> authenticate(h, "GET", "/pools/order/ids", QUERY, "order", 3));
        refused(Reason.SIGNATURE, () -> authenticate(h, "GET", PATH, "count=4", "user", 4));
        refused(Reason.SIGNATURE, () -> authenticate(h, "GET", PATH, QUERY + "&x=1", "user", 3));
        refused(Reason.SIGNATURE, () -> authenticate(h, "GET", PATH, null, "user", 3));
        refused(Reason.SIGNATURE, () -> authenticate(with(h, RequestSigner.TIMESTAMP, Long.toString(timestamp - 1))));
        refused(Reason.TIMESTAMP, () -> authenticate(with(h, RequestSigner.TIMESTAMP, "soon")));
        refused(Reason.SIGNATURE, () -> authenticate(with(h, RequestSigner.NONCE, RequestSigner.newNonce())));
        refused(Reason.NONCE, () -> authenticate(with(h, RequestSigner.NONCE, "short-nonce")));
        refused(Reason.NONCE, () -> authenticate(with(h, RequestSigner.NONCE, nonce.substring(0, 20) + "!?")));
        refused(Reason.NONCE, () -> authenticate(with(h, RequestSigner.NONCE, "n".repeat(65))));
        char first = signature.charAt(0);
        refused(Reason.SIGNATURE, () -> authenticate(with(h, RequestSigner.SIGNATURE,
                (first == 'A' ? 'B' : 'A') + signature.substring(1))));
        refused(Reason.SIGNATURE, () -> authenticate(with(h, RequestSigner.SIGNATURE, "not base64 %%%")));
        refused(Reason.SIGNATURE, () -> authenticate(with(h, RequestSigner.APP_KEY, other.appKey())));

        assertThat(authenticate(h).appKey()).as("the refusals did not use up its nonce").isEqualTo(demo.appKey());
        refused(Reason.REPLAY, () -> authenticate(h));
    }

    @Test
    void aMissingOrBlankHeaderIsMissingHeader() {
        Map<String, String> h = signed(demo);
        for (String name : List.of(RequestSigner.APP_KEY, RequestSigner.TIMESTAMP, RequestSigner.NONCE,
                RequestSigner.SIGNATURE)) {
            refused(Reason.MISSING_HEADER, () -> authenticate(with(h, name, null)));
            refused(Reason.MISSING_HEADER, () -> authenticate(with(h, name, " ")));
        }
        refused(Reason.MISSING_HEADER, () -> authenticate(Map.of()));
        assertThat(authenticate(h).appKey()).isEqualTo(demo.appKey());
    }

    @Test
    void aTimestampMoreThanFiveMinutesOffEitherWayIsRefused() {
        long now = clock.millis();
        long off = WINDOW.plusSeconds(1).toMillis();
        refused(Reason.TIMESTAMP, () -> authenticate(signed(demo, demo.secret(), "GET", PATH, QUERY, now - off)));
        refused(Reason.TIMESTAMP, () -> authenticate(signed(demo, demo.secret(), "GET", PATH, QUERY, now + off)));
        assertThat(authenticate(signed(demo, demo.secret(), "GET", PATH, QUERY, now - WINDOW.toMillis())).appKey())
                .as("exactly five minutes old").isEqualTo(demo.appKey());
        assertThat(authenticate(signed(demo, demo.secret(), "GET", PATH, QUERY, now + WINDOW.toMillis())).appKey())
                .as("exactly five minutes ahead").isEqualTo(demo.appKey());

        Map<String, String> h = signed(demo);
        clock.advance(off);
        refused(Reason.TIMESTAMP, () -> authenticate(h));
    }

    /**
     * A timestamp exactly {@code 2^63} ms from the server's clock: {@code now - timestamp} overflows to
     * {@code Long.MIN_VALUE}, whose absolute value is negative, so a plain {@code Math.abs} check lets it through
     * (and the nonce is then kept for the clock tolerance only). Other extremes are refused too.
     */
    @Test
    void aTimestampWhoseDistanceOverflowsIsRefused() {
        long now = clock.millis();
        for (long timestamp : new long[] {now + Long.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, -1, 0}) {
            refused(Reason.TIMESTAMP, () -> authenticate(signed(demo, demo.secret(), "GET", PATH, QUERY, timestamp)));
        }
    }

    @Test
    void aReplayIsRefusedByThisAndByAnotherInstance() {
        Map<String, String> h = signed(demo);
        authenticate(h);
        refused(Reason.REPLAY, () -> authenticate(h));
        RequestAuthenticator otherInstance = newAuthenticator();
        assertThatThrownBy(() -> otherInstance.authenticate("GET", PATH, QUERY, h::get, "user", 3))
                .isInstanceOfSatisfying(UnauthorizedException.class,
                        e -> assertThat(e.getReason()).isEqualTo(Reason.REPLAY));
        assertThat(Reason.REPLAY.code()).isEqualTo("replay");
    }

    @Test
    void anUnknownOrDisabledKeyIsABadSignatureSayingOnlyUnauthorized() {
        ServiceApp unknown = ServiceApp.builder("nobody-" + UUID.randomUUID().toString().substring(0, 8))
                .secret(newSecret()).entities("*").build();
        refused(Reason.SIGNATURE, () -> authenticate(signed(unknown)));

        apps.register(demo.toBuilder().enabled(false).build());
        refused(Reason.SIGNATURE, () -> authenticate(signed(demo)));
        assertThat(Reason.SIGNATURE.code()).isEqualTo("signature");

        apps.register(demo);
        assertThat(authenticate(signed(demo)).appKey()).isEqualTo(demo.appKey());
    }

    /**
     * During a rotation both secrets sign; once an operator clears {@code previous_secret} in the table, the
     * old one is refused after the next refresh.
     */
    @Test
    void bothSecretsPassDuringARotationAndTheOldOneIsRefusedOnceCleared() {
        String old = demo.secret();
        ServiceApp rotating = demo.toBuilder().previousSecret(old).secret(newSecret()).build();
        db.newStore().save(rotating);
        apps.refresh();
        assertThat(authenticate(signed(rotating, rotating.secret(), "GET", PATH, QUERY, clock.millis())).appKey())
                .isEqualTo(demo.appKey());
        assertThat(authenticate(signed(rotating, old, "GET", PATH, QUERY, clock.millis())).appKey())
                .isEqualTo(demo.appKey());

        db.newStore().save(rotating.toBuilder().previousSecret(null).build());
        assertThat(authenticate(signed(rotating, old, "GET", PATH, QUERY, clock.millis())).appKey())
                .as("until the next refresh").isEqualTo(demo.appKey());
        apps.refresh();
        refused(Reason.SIGNATURE, () -> authenticate(signed(rotating, old, "GET", PATH, QUERY, clock.millis())));
        assertThat(authenticate(signed(rotating, rotating.secret(), "GET", PATH, QUERY, clock.millis())).appKey())
                .isEqualTo(demo.appKey());
    }

    @Test
    void anEntityNotAllowedIsForbiddenAndItsReplayIsAReplay() {
        Map<String, String> h = signed(demo, demo.secret(), "GET", "/pools/invoice/ids", QUERY, clock.millis());
        assertThatThrownBy(() -> authenticate(h, "GET", "/pools/invoice/ids", QUERY, "invoice", 3))
                .isInstanceOfSatisfying(EntityForbiddenException.class,
                        e -> assertThat(e.getEntity()).isEqualTo("invoice"))
                .hasMessageContaining(demo.appKey()).hasMessageContaining("'invoice'")
                .satisfies(e -> assertNoSecret(e.getMessage()));
        refused(Reason.REPLAY, () -> authenticate(h, "GET", "/pools/invoice/ids", QUERY, "invoice", 3));
    }

    @Test
    void aCallPastTheApplicationsOwnLimitIsRateLimitedWithAPositiveWait() {
        ServiceApp small = ServiceApp.builder(demo.appKey() + "-small").secret(newSecret()).entities("*")
                .maxPerSecond(10).build();
        apps.register(small);
        Map<String, String> h = signed(small, small.secret(), "GET", PATH, "count=11", clock.millis());
        assertThatThrownBy(() -> authenticate(h, "GET", PATH, "count=11", "user", 11))
                .isInstanceOfSatisfying(AppRateLimitedException.class, e -> {
                    assertThat(e.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
                    assertThat(e.getMaxPerSecond()).isEqualTo(10);
                })
                .hasMessageContaining(small.appKey())
                .satisfies(e -> assertNoSecret(e.getMessage()));
        refused(Reason.REPLAY, () -> authenticate(h, "GET", PATH, "count=11", "user", 11));
        Map<String, String> ten = signed(small, small.secret(), "GET", PATH, "count=10", clock.millis());
        assertThat(authenticate(ten, "GET", PATH, "count=10", "user", 10).appKey()).as("the refused call counted nothing")
                .isEqualTo(small.appKey());
    }

    private void assertNoSecret(String text) {
        for (String secret : secrets) {
            assertThat(text).doesNotContain(secret);
        }
    }
}
