package io.github.idworker.signing;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SigningTest {

    static final long NOW = 1_764_000_000_000L;
    static final String NONCE = "abcdefghijklmnop0123";

    private final Map<String, List<String>> apps = new HashMap<>(Map.of("demo", List.of("s3cret")));
    private final SignatureVerifier verifier = new SignatureVerifier(k -> apps.getOrDefault(k, List.of()),
            Duration.ofMinutes(5), () -> NOW);
    private final RequestSigner signer = new RequestSigner("demo", "s3cret");

    private static Function<String, String> headers(Map<String, String> h) {
        return h::get;
    }

    @Test
    void theSignatureMatchesAnIndependentHmacOfTheCanonicalText() {
        // printf 'GET\n/pools/user/ids\ncount=3\n1764000000000\nabcdefghijklmnop0123' \
        //   | openssl dgst -sha256 -hmac 's3cret' -binary | base64
        Map<String, String> h = signer.sign("GET", "/pools/user/ids", "count=3", NOW, NONCE);
        assertThat(h).containsEntry(RequestSigner.SIGNATURE, "9TZzmj67cJRz1HoVkmvFF4RlrZLTkjpYDlX2737rKRQ=")
                .containsEntry(RequestSigner.APP_KEY, "demo").containsEntry(RequestSigner.TIMESTAMP, "1764000000000")
                .containsEntry(RequestSigner.NONCE, NONCE);
    }

    /** {@code NOW - (NOW + Long.MIN_VALUE)} overflows to {@code Long.MIN_VALUE}, whose {@code Math.abs} is negative. */
    @Test
    void aTimestampWhoseDistanceFromNowOverflowsIsExpired() {
        for (long at : new long[] {NOW + Long.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE}) {
            Map<String, String> h = signer.sign("GET", "/pools/user/ids", "count=3", at, NONCE);
            assertThat(verifier.verify("GET", "/pools/user/ids", "count=3", headers(h))).as("timestamp %s", at)
                    .isEqualTo(SignatureVerifier.Outcome.EXPIRED);
        }
    }

    @Test
    void theCanonicalQueryIgnoresOrderAndEncodingButNotContent() {
        assertThat(CanonicalRequest.query("b=2&a=1")).isEqualTo("a=1&b=2");
        assertThat(CanonicalRequest.query("a=%7e&&b")).isEqualTo("a=~&b=");
        assertThat(CanonicalRequest.query("q=x%20y")).isEqualTo("q=x%20y").isNotEqualTo(CanonicalRequest.query("q=x+y"));
        assertThat(CanonicalRequest.query("n=%E4%B8%AD")).isEqualTo(CanonicalRequest.query("n=中"));
        assertThat(CanonicalRequest.of("get", "", null, 1, NONCE)).isEqualTo("GET\n/\n\n1\n" + NONCE);
        assertThatThrownBy(() -> CanonicalRequest.query("a=%G1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSignedRequestPassesAndEveryTamperedPartIsRefused() {
        Map<String, String> h = signer.sign("GET", "/pools/user/ids", "count=3", NOW, NONCE);
        assertThat(verifier.verify("GET", "/pools/user/ids", "count=3", headers(h)))
                .isEqualTo(SignatureVerifier.Outcome.VALID);
        assertThat(verifier.verify("POST", "/pools/user/ids", "count=3", headers(h)))
                .isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
        assertThat(verifier.verify("GET", "/pools/order/ids", "count=3", headers(h)))
                .isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
        assertThat(verifier.verify("GET", "/pools/user/ids", "count=1000", headers(h)))
                .isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
        assertThat(verifier.verify("GET", "/pools/user/ids", null, headers(h)))
                .isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
        for (String name : List.of(RequestSigner.TIMESTAMP, RequestSigner.NONCE, RequestSigner.SIGNATURE,
                RequestSigner.APP_KEY)) {
            Map<String, String> tampered = new HashMap<>(h);
            tampered.put(name, switch (name) {
                case RequestSigner.TIMESTAMP -> Long.toString(NOW + 1);
                case RequestSigner.NONCE -> "abcdefghijklmnop0124";
                case RequestSigner.SIGNATURE -> "8TZzmj67cJRz1HoVkmvFF4RlrZLTkjpYDlX2737rKRQ=";
                default -> "other";
            });
            assertThat(verifier.verify("GET", "/pools/user/ids", "count=3", headers(tampered)))
                    .as("tampered %s", name).isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
            Map<String, String> missing = new HashMap<>(h);
            missing.remove(name);
            assertThat(verifier.verify("GET", "/pools/user/ids", "count=3", headers(missing)))
                    .as("missing %s", name).isEqualTo(SignatureVerifier.Outcome.MISSING_HEADER);
        }
    }

    @Test
    void timestampsOutsideTheWindowAndMalformedNoncesAreRefused() {
        long window = Duration.ofMinutes(5).toMillis();
        for (long at : new long[] {NOW - window - 1, NOW + window + 1}) {
            Map<String, String> h = signer.sign("GET", "/p", "", at, NONCE);
            assertThat(verifier.verify("GET", "/p", "", headers(h))).isEqualTo(SignatureVerifier.Outcome.EXPIRED);
        }
        for (long at : new long[] {NOW - window, NOW + window}) {
            Map<String, String> h = signer.sign("GET", "/p", "", at, NONCE);
            assertThat(verifier.verify("GET", "/p", "", headers(h))).isEqualTo(SignatureVerifier.Outcome.VALID);
        }
        Map<String, String> h = new HashMap<>(signer.sign("GET", "/p", "", NOW, NONCE));
        h.put(RequestSigner.TIMESTAMP, "soon");
        assertThat(verifier.verify("GET", "/p", "", headers(h))).isEqualTo(SignatureVerifier.Outcome.EXPIRED);
        // the signed text holds the timestamp as the server renders it: only that form is accepted, so a client in
        // any language that signs the header as sent gets the same text
        for (String form : List.of("+" + NOW, "0" + NOW, " " + NOW + "x", "-0", NOW + ".0")) {
            h.put(RequestSigner.TIMESTAMP, form);
            assertThat(verifier.verify("GET", "/p", "", headers(h))).as("timestamp '%s'", form)
                    .isEqualTo(SignatureVerifier.Outcome.EXPIRED);
        }
        for (String nonce : List.of("short", "x".repeat(65), "abcdefghijklmnop 12")) {
            Map<String, String> n = signer.sign("GET", "/p", "", NOW, nonce);
            assertThat(verifier.verify("GET", "/p", "", headers(n))).as(nonce).isEqualTo(SignatureVerifier.Outcome.BAD_NONCE);
        }
        assertThat(RequestSigner.newNonce()).hasSize(22).isNotEqualTo(RequestSigner.newNonce());
    }

    @Test
    void duringARotationBothSecretsPassAndAfterItOnlyTheNewOne() {
        Map<String, String> old = signer.sign("GET", "/p", "count=1", NOW, NONCE);
        Map<String, String> fresh = new RequestSigner("demo", "n3w-secret").sign("GET", "/p", "count=1", NOW, NONCE);
        apps.put("demo", List.of("s3cret", "n3w-secret"));
        assertThat(verifier.verify("GET", "/p", "count=1", headers(old))).isEqualTo(SignatureVerifier.Outcome.VALID);
        assertThat(verifier.verify("GET", "/p", "count=1", headers(fresh))).isEqualTo(SignatureVerifier.Outcome.VALID);
        apps.put("demo", List.of("n3w-secret"));
        assertThat(verifier.verify("GET", "/p", "count=1", headers(old))).isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
        apps.remove("demo");
        assertThat(verifier.verify("GET", "/p", "count=1", headers(fresh))).isEqualTo(SignatureVerifier.Outcome.BAD_SIGNATURE);
    }

    @Test
    void theSecretNeverShowsInTheSignersTextOrHeaders() {
        assertThat(signer.toString()).doesNotContain("s3cret");
        assertThat(signer.sign("GET", "/p", "", NOW, NONCE).values()).noneMatch(v -> v.contains("s3cret"));
        assertThatThrownBy(() -> new RequestSigner("demo", " ")).hasMessageContaining("secret")
                .hasMessageNotContaining(" s");
    }
}
