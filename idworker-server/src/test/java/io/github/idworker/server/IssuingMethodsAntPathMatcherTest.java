package io.github.idworker.server;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator who switches Spring MVC to {@code AntPathMatcher} keeps the guarantee of {@link IssuingMethodsTest}:
 * such mappings carry their patterns as text only, and the filter still finds the issuing paths among them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.mvc.pathmatch.matching-strategy=ant_path_matcher",
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class IssuingMethodsAntPathMatcherTest {

    @LocalServerPort
    int port;

    @Test
    void headOnAnIssuingEndpointIsStillMethodNotAllowedWithAllowGet() throws Exception {
        RawHttp.Response response = RawHttp.send(port, "HEAD", "/ids/next");
        assertThat(response.status()).isEqualTo(405);
        assertThat(response.headers().get("allow")).isEqualTo("GET");
    }

    @Test
    void getStillIssues() throws Exception {
        assertThat(RawHttp.send(port, "GET", "/ids/next").status()).isEqualTo(200);
    }
}
