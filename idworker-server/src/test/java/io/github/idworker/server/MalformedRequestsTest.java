package io.github.idworker.server;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every malformed request, whether Tomcat, Spring MVC or the sample refuses it, is answered with an RFC 9457
 * problem document ({@code application/problem+json}) and a fitting status, never an HTML page; its
 * {@code detail} says what was wrong without repeating the request at length.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class MalformedRequestsTest {

    private static final String LONG_PATH = "/ids/" + "a".repeat(10_000);
    private static final String LARGE_HEADER = "X-Large: " + "b".repeat(20_000);

    @LocalServerPort
    int port;

    /** One malformed request and the status it must get. */
    record Case(String name, String method, String target, int status, String... headers) {
    }

    static List<Case> cases() {
        return List.of(
                new Case("bad percent-encoding in the path", "GET", "/pools/%zz/ids", 400),
                new Case("path parameter", "GET", "/ids/next;x", 400),
                new Case("session id as path parameter", "GET", "/ids/next;jsessionid=1", 400),
                new Case("empty segment", "GET", "//ids/next", 400),
                new Case("encoded slash", "GET", "/ids/%2F/next", 400),
                new Case("encoded backslash", "GET", "/ids/%5C/next", 400),
                new Case("dot-dot segment with parameter", "GET", "/ids/..;/next", 400),
                new Case("dot segment", "GET", "/ids/./next", 400),
                new Case("dot-dot segment", "GET", "/ids/../ids/next", 400),
                new Case("encoded NUL", "GET", "/ids/%00/next", 400),
                new Case("character not allowed in a path", "GET", "/ids/{next}", 400),
                new Case("path of 10 000 characters", "GET", LONG_PATH, 414),
                new Case("bad percent-encoding in the query", "GET", "/ids/next?count=%zz", 400),
                new Case("unknown path", "GET", "/nope", 404),
                new Case("unknown path of 7 000 characters", "GET", "/" + "c".repeat(7_000), 404),
                new Case("the error path itself", "GET", "/error", 404),
                new Case("request header too large", "GET", "/ids/next", 431, LARGE_HEADER),
                new Case("TRACE", "TRACE", "/ids/next", 405),
                new Case("POST on an issuing endpoint", "POST", "/ids/next", 405, "Content-Length: 0"),
                new Case("DELETE on a read-only endpoint", "DELETE", "/ids/decode/1", 405));
    }

    @Test
    void everyMalformedRequestGetsAProblemDocumentWithAFittingStatus() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        StringBuilder table = new StringBuilder("| request | status | content type |\n|---|---|---|\n");
        for (Case c : cases()) {
            RawHttp.Response response = RawHttp.send(port, c.method(), c.target(), c.headers());
            String shown = c.target().length() > 40 ? c.target().substring(0, 20) + "…" : c.target();
            table.append("| ").append(c.name()).append(": `").append(c.method()).append(' ').append(shown)
                    .append(c.headers().length > 0 ? " + " + c.headers()[0].substring(0, 9) + "…" : "")
                    .append("` | ").append(response.status()).append(" | ").append(response.contentType())
                    .append(" |\n");
            softly.assertThat(response.status()).as(c.name() + " status").isEqualTo(c.status());
            softly.assertThat(response.contentType()).as(c.name() + " content type")
                    .startsWith("application/problem+json");
            softly.assertThat(response.body()).as(c.name() + " body").doesNotContainIgnoringCase("<html")
                    .contains("\"status\":" + response.status()).contains("\"detail\":\"");
            softly.assertThat(response.body().length()).as(c.name() + " body length").isLessThan(600);
        }
        System.out.println(table);
        softly.assertAll();
    }

    @Test
    void traceIsRefusedByNameAndTheInstanceIsThePathAsked() throws Exception {
        RawHttp.Response response = RawHttp.send(port, "TRACE", "/ids/next");
        assertThat(response.status()).isEqualTo(405);
        assertThat(response.body()).contains("\"detail\":\"method 'TRACE' is not allowed on this server\"")
                .contains("\"instance\":\"/ids/next\"");
    }
}
