package io.github.idworker.server;

import io.github.idworker.snowflake.AbstractIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Endpoints that issue numbers answer {@code GET} only: {@code HEAD} is a 405 with {@code Allow: GET} and takes
 * nothing (the next number after it is still the next one), and every other method is a 405 problem document naming
 * the method and what is allowed. Read-only endpoints keep {@code HEAD}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class IssuingMethodsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    @Autowired
    AbstractIdWorker worker;

    private static String newTag() {
        return "t-" + UUID.randomUUID().toString().substring(0, 13);
    }

    private RawHttp.Response send(String method, String path) throws Exception {
        return method.equals("HEAD") || method.equals("GET") || method.equals("TRACE")
                ? RawHttp.send(port, method, path) : RawHttp.send(port, method, path, "Content-Length: 0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/ids/next", "/ids/next?count=3", "/ids/segment/order", "/ids/sequence/order",
            "/serials/invoice", "/pools/user/ids"})
    void headOnAnIssuingEndpointIsMethodNotAllowedWithAllowGetAndNoBody(String path) throws Exception {
        RawHttp.Response response = send("HEAD", path);
        assertThat(response.status()).isEqualTo(405);
        assertThat(response.headers().get("allow")).isEqualTo("GET");
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
    void anyOtherMethodIsAProblemDocumentNamingItAndGet(String method) throws Exception {
        for (String path : new String[] {"/ids/next", "/ids/segment/order", "/ids/sequence/order", "/serials/order",
                "/pools/user/ids"}) {
            RawHttp.Response response = send(method, path);
            assertThat(response.status()).as(method + " " + path).isEqualTo(405);
            assertThat(response.headers().get("allow")).as(method + " " + path).isEqualTo("GET");
            assertThat(response.contentType()).startsWith("application/problem+json");
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.path("status").asInt()).isEqualTo(405);
            assertThat(body.path("method").asString()).isEqualTo(method);
            assertThat(body.path("allowed").toString()).isEqualTo("[\"GET\"]");
            assertThat(body.path("detail").asString()).isEqualTo("method '" + method + "' is not allowed here; "
                    + "allowed: GET (this endpoint issues numbers, so not even HEAD)");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"segment", "sequence"})
    void headTakesNoNumberOfATag(String endpoint) throws Exception {
        String path = "/ids/" + endpoint + "/" + newTag();
        for (int i = 0; i < 3; i++) {
            assertThat(send("HEAD", path + "?count=100").status()).isEqualTo(405);
        }
        // a new tag starts at 1: had HEAD taken anything, this would be 301 or more
        assertThat(SampleHttp.get(port, path).ids()).containsExactly(1);
    }

    @Test
    void headTakesNoId() throws Exception {
        long before = worker.issuedCount();
        for (int i = 0; i < 3; i++) {
            assertThat(send("HEAD", "/ids/next?count=1000").status()).isEqualTo(405);
        }
        assertThat(worker.issuedCount()).isEqualTo(before);
        assertThat(SampleHttp.get(port, "/ids/next?count=2").ids()).hasSize(2);
        assertThat(worker.issuedCount()).isEqualTo(before + 2);
    }

    @Test
    void headTakesNoSerialNumber() throws Exception {
        String first = SampleHttp.get(port, "/serials/invoice").strings().get(0);
        assertThat(send("HEAD", "/serials/invoice?count=5").status()).isEqualTo(405);
        String next = SampleHttp.get(port, "/serials/invoice").strings().get(0);
        // INV-00000001: eight digits, never reset, strict (consecutive across calls)
        assertThat(Long.parseLong(next.substring(4))).isEqualTo(Long.parseLong(first.substring(4)) + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/ids/decode/1", "/status", "/actuator/health"})
    void readOnlyEndpointsKeepHead(String path) throws Exception {
        RawHttp.Response response = send("HEAD", path);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).isEmpty();
    }

    @Test
    void aReadOnlyEndpointNamesHeadAmongTheAllowedMethods() throws Exception {
        RawHttp.Response response = send("DELETE", "/ids/decode/1");
        assertThat(response.status()).isEqualTo(405);
        assertThat(response.contentType()).startsWith("application/problem+json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.path("detail").asString()).isEqualTo("method 'DELETE' is not allowed here; allowed: GET, HEAD");
    }
}
