package io.github.idworker.client;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every setting the builder refuses, with a message naming the setter and what is allowed; and the defaults. */
class IdServiceClientBuilderTest {

    private static final String SECRET = "builder-" + java.util.UUID.randomUUID();

    private static IdServiceClient.Builder valid() {
        return IdServiceClient.builder().appKey("demo").secret(SECRET)
                .environments(List.of(URI.create("http://127.0.0.1:8080"), URI.create("HTTPS://ids.example.com/")));
    }

    private static void refused(UnaryOperator<IdServiceClient.Builder> setting, String message) {
        assertThatThrownBy(() -> setting.apply(valid()).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message).hasMessageNotContaining(SECRET);
    }

    @Test
    void badValuesAreRefusedNamingTheSetterAndWhatIsAllowed() {
        refused(b -> b.appKey(""), "appKey must not be blank");
        refused(b -> b.appKey(null), "appKey must not be blank");
        refused(b -> b.appKey("my app"), "appKey must be printable ASCII without spaces (it is sent as a header), "
                + "found character 32 at 2");
        refused(b -> b.secret(" "), "secret must not be blank");
        refused(b -> b.environments(List.of()), "environments must hold at least one base URL (http(s)://host:port)");
        refused(b -> b.environments(null), "environments must hold at least one base URL (http(s)://host:port)");
        refused(b -> b.environments(Arrays.asList(URI.create("http://a:1"), null)), "environments[1] must not be null");
        refused(b -> b.environments(List.of(URI.create("ftp://a:1"))),
                "environments[0] must be an http or https URL with a host, http(s)://host:port");
        refused(b -> b.environments(List.of(URI.create("/pools"))),
                "environments[0] must be an http or https URL with a host, http(s)://host:port");
        refused(b -> b.environments(List.of(URI.create("http://a:1/ctx?x=1"))),
                "environments[0] must be scheme://host:port without path, query or fragment (the signed path starts "
                        + "at /pools), was http://a:1 with more after it");
        refused(b -> b.environments(List.of(URI.create("http://a:1"), URI.create("HTTP://a:1/"))),
                "environments must not repeat a base URL, http://a:1 is there twice");
        refused(b -> b.batchSize(0), "batchSize must be from 1 to 100000, was 0");
        refused(b -> b.batchSize(100_001), "batchSize must be from 1 to 100000, was 100001");
        refused(b -> b.refillThreshold(-1), "refillThreshold must be from 0 to batchSize, was -1");
        refused(b -> b.batchSize(10).refillThreshold(11), "refillThreshold must be from 0 to batchSize 10, was 11");
        refused(b -> b.connectTimeout(Duration.ZERO), "connectTimeout must be from 1ms to 24h, was 0ms");
        refused(b -> b.requestTimeout(null), "requestTimeout must be from 1ms to 24h, was null");
        refused(b -> b.openDuration(Duration.ofDays(2)), "openDuration must be from 1ms to 24h, was 172800000ms");
        refused(b -> b.maxWait(Duration.ofNanos(1)), "maxWait must be from 1ms to 24h, was 0ms");
        refused(b -> b.failureThreshold(0), "failureThreshold must be at least 1, was 0");
    }

    /** A secret the service would refuse at every call fails when the client is built, saying what is allowed. */
    @Test
    void aSecretOfAFormTheServiceRefusesFailsNamingTheArgumentAndTheFormNeverTheSecret() {
        String allowed = "; allowed: 16 to 256 printable ASCII characters without spaces, the form the ID service "
                + "issues and accepts";
        String shortOne = "hunter2-short";
        String withSpace = "correct horse battery staple";
        String nonAscii = "s\u00e9cret-0123456789abcdef";
        assertThatThrownBy(() -> valid().secret(shortOne)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("secret must be 16 to 256 characters, was 13" + allowed);
        assertThatThrownBy(() -> valid().secret("x".repeat(257)))
                .hasMessage("secret must be 16 to 256 characters, was 257" + allowed);
        assertThatThrownBy(() -> valid().secret(withSpace))
                .hasMessage("secret must be printable ASCII without spaces (character 8 is not)" + allowed);
        assertThatThrownBy(() -> valid().secret(nonAscii)).hasMessageStartingWith("secret must be printable ASCII")
                .hasMessageNotContaining("s\u00e9cret");
        for (String bad : new String[] {shortOne, withSpace, nonAscii}) {
            assertThatThrownBy(() -> valid().secret(bad)).hasMessageNotContaining(bad);
        }
        // the service's own drawn form (43 characters of Base64url) and the boundaries pass
        assertThat(valid().secret("x".repeat(16))).isNotNull();
        assertThat(valid().secret("!~" + "x".repeat(254))).isNotNull();
        assertThat(valid().secret("AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE")).isNotNull();
    }

    @Test
    void requiredSettingsAreNamedWhenMissing() {
        assertThatThrownBy(() -> IdServiceClient.builder().secret(SECRET).build()).hasMessage("appKey must be set");
        assertThatThrownBy(() -> IdServiceClient.builder().appKey("demo").build()).hasMessage("secret must be set");
        assertThatThrownBy(() -> IdServiceClient.builder().appKey("demo").secret(SECRET).build())
                .hasMessage("environments must be set (at least one base URL)");
    }

    @Test
    void userInfoInABaseUrlIsRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> valid().environments(List.of(URI.create("http://user:hunter2@a:1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("environments[0] must not hold "
                        + "user info").hasMessageNotContaining("hunter2");
    }

    @Test
    void defaultsAndToStringWithoutTheSecret() {
        try (IdServiceClient client = valid().build()) {
            assertThat(client.toString()).isEqualTo("IdServiceClient[appKey=demo, environments=[http://127.0.0.1:8080, "
                    + "https://ids.example.com], batchSize=1000, refillThreshold=500, connectTimeout=1000ms, "
                    + "requestTimeout=2000ms, failureThreshold=3, openDuration=5000ms, maxWait=5000ms]")
                    .doesNotContain(SECRET);
            assertThat(client.stats().endpoints()).extracting(EndpointStats::baseUrl).containsExactly(
                    URI.create("http://127.0.0.1:8080"), URI.create("https://ids.example.com"));
        }
        try (IdServiceClient client = valid().batchSize(1).requestTimeout(Duration.ofMillis(300)).build()) {
            assertThat(client.toString()).contains("refillThreshold=0,").contains("maxWait=1600ms");
        }
    }
}
