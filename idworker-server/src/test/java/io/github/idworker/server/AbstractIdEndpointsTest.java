package io.github.idworker.server;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import io.github.idworker.snowflake.AbstractIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP contract of {@code /ids}, run over a real server for each centre the sample can use. */
abstract class AbstractIdEndpointsTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    @Autowired
    AbstractIdWorker worker;

    record Response(int status, String contentType, JsonNode body) {
    }

    Response get(String path) throws Exception {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                JSON.readTree(response.body()));
    }

    @Test
    void healthShowsTheWorkersLeaseAsComponentIdWorker() throws Exception {
        // the pools' component is DOWN until their first refill check has ended, which may come after startup
        Response response = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(15))
                .until(() -> get("/actuator/health"), r -> r.status() == 200);
        assertThat(response.body().path("status").asString()).isEqualTo("UP");
        JsonNode idWorker = response.body().path("components").path("idWorker");
        assertThat(idWorker.path("status").asString()).isEqualTo("UP");
        assertThat(idWorker.path("details").size()).as("%s", idWorker).isEqualTo(1);
        JsonNode lease = idWorker.path("details").properties().iterator().next().getValue();
        assertThat(lease.path("namespace").asString()).isEqualTo(worker.namespace());
        assertThat(lease.path("state").asString()).isEqualTo("issuing");
        assertThat(lease.path("workerId").asInt()).isEqualTo(worker.currentLease().workerId());
        assertThat(lease.path("millisToHighWater").asLong()).isPositive();
    }

    @Test
    void asStringAnswersIdentifiersAsJsonStringsAndAsNumberAsNumbers() throws Exception {
        Response strings = get("/ids/next?count=3&as=string");
        assertThat(strings.status()).as("%s", strings.body()).isEqualTo(200);
        assertThat(strings.body()).hasSize(3);
        for (JsonNode id : strings.body()) {
            assertThat(id.isString()).as("%s", id).isTrue();
            assertThat(id.asString()).matches("[1-9][0-9]*");
        }
        String first = strings.body().get(0).asString();
        Response decoded = get("/ids/decode/" + first + "?as=string");
        assertThat(decoded.status()).isEqualTo(200);
        assertThat(decoded.body().path("id").isString()).isTrue();
        assertThat(decoded.body().path("id").asString()).isEqualTo(first);
        assertThat(decoded.body().path("workerId").isIntegralNumber()).isTrue();
        assertThat(decoded.body().path("workerId").asInt()).isEqualTo(worker.currentLease().workerId());

        Response numbers = get("/ids/next?count=2&as=number");
        assertThat(numbers.status()).isEqualTo(200);
        assertThat(numbers.body().get(0).isIntegralNumber()).isTrue();
        assertThat(numbers.body().get(0).asLong()).isGreaterThan(Long.parseLong(first));
    }

    @ParameterizedTest
    @ValueSource(strings = {"decimal", "decimal-fixed", "base36", "base36-fixed", "base62", "base62-fixed"})
    void everyStringFormAnswersInThatFormAndDecodeReadsIt(String name) throws Exception {
        IdFormat form = IdFormats.named(name);
        Response strings = get("/ids/next?count=3&as=" + name);
        assertThat(strings.status()).as("%s", strings.body()).isEqualTo(200);
        assertThat(strings.body()).hasSize(3);
        long previous = 0;
        for (JsonNode id : strings.body()) {
            assertThat(id.isString()).as("%s", id).isTrue();
            if (form.isFixedWidth()) {
                assertThat(id.asString()).hasSize(form.width());
            }
            long value = form.parse(id.asString());
            assertThat(value).isGreaterThan(previous);
            previous = value;
        }
        String first = strings.body().get(0).asString();
        Response decoded = get("/ids/decode/" + first + "?as=" + name);
        assertThat(decoded.status()).as("%s", decoded.body()).isEqualTo(200);
        assertThat(decoded.body().path("id").asString()).isEqualTo(first);
        assertThat(decoded.body().path("workerId").asInt()).isEqualTo(worker.currentLease().workerId());
        Response plain = get("/ids/decode/" + form.parse(first));
        assertThat(plain.body().path("id").asLong()).isEqualTo(form.parse(first));
        assertThat(plain.body().path("timestamp")).isEqualTo(decoded.body().path("timestamp"));
    }

    @Test
    void decodeRefusesAnIdNotInTheFormAsNamesSayingWhy() throws Exception {
        Response misspelt = get("/ids/decode/IVill-bwga?as=base62");
        assertThat(misspelt.status()).isEqualTo(400);
        assertThat(misspelt.body().path("parameter").asString()).isEqualTo("id");
        assertThat(misspelt.body().path("detail").asString()).isEqualTo("id must be a non-negative 64-bit integer "
                + "in the base62 form that as=base62 names: identifier \"IVill-bwga\" (base62) has '-' at index 5, "
                + "outside the base62 digits 0-9, A-Z, a-z");
        Response beyond = get("/ids/decode/zzzzzzzzzzz?as=base62");
        assertThat(beyond.status()).isEqualTo(400);
        assertThat(beyond.body().path("detail").asString()).contains("beyond the largest identifier");
        Response unpadded = get("/ids/decode/1?as=base36-fixed");
        assertThat(unpadded.status()).isEqualTo(400);
        assertThat(unpadded.body().path("detail").asString()).contains("the base36-fixed form has exactly 13");
    }

    @ParameterizedTest
    @ValueSource(strings = {"as=STRING", "as=text", "as=", "as=string&as=string", "as=string&as=number",
            "as=base64", "as=Base62", "as=base62-FIXED"})
    void anyOtherAsIsABadRequestNamingIt(String query) throws Exception {
        for (String path : new String[] {"/ids/next?", "/ids/decode/1?"}) {
            Response response = get(path + query);
            assertThat(response.status()).as(path + query).isEqualTo(400);
            assertThat(response.contentType()).startsWith("application/problem+json");
            assertThat(response.body().path("parameter").asString()).isEqualTo("as");
            assertThat(response.body().path("detail").asString()).isEqualTo("as must be given once, as one of "
                    + "number, decimal, string, decimal-fixed, base36, base36-fixed, base62, base62-fixed");
        }
    }

    @Test
    void nextWithoutCountReturnsOneId() throws Exception {
        Response response = get("/ids/next");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.contentType()).startsWith("application/json");
        assertThat(response.body().isArray()).isTrue();
        assertThat(response.body()).hasSize(1);
        assertThat(response.body().get(0).asLong()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4096, 10_000})
    void nextReturnsCountDistinctIncreasingIds(int count) throws Exception {
        Response response = get("/ids/next?count=" + count);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).hasSize(count);
        Set<Long> ids = new HashSet<>();
        long previous = 0;
        for (JsonNode id : response.body()) {
            assertThat(id.isIntegralNumber()).isTrue();
            long value = id.asLong();
            assertThat(value).isGreaterThan(previous);
            previous = value;
            ids.add(value);
        }
        assertThat(ids).hasSize(count);
    }

    @Test
    void idsOfSeparateRequestsAreDistinct() throws Exception {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            get("/ids/next?count=500").body().forEach(id -> ids.add(id.asLong()));
        }
        assertThat(ids).hasSize(20 * 500);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "10001", "abc", "-1", "", "99999999999", "+2", "02", "%202", "2%20", "%2B2", "2.0",
            "%D9%A2"})
    void aCountOutsideOneToTenThousandIsABadRequestNamingCount(String count) throws Exception {
        Response response = get("/ids/next?count=" + count);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body().get("status").asInt()).isEqualTo(400);
        assertThat(response.body().get("parameter").asString()).isEqualTo("count");
        assertThat(response.body().get("detail").asString()).contains("count").contains("from 1 to 10000")
                .contains("plain decimal digits");
    }

    @Test
    void decodeSplitsAnIssuedId() throws Exception {
        long id = get("/ids/next").body().get(0).asLong();
        Response response = get("/ids/decode/" + id);
        assertThat(response.status()).isEqualTo(200);
        JsonNode body = response.body();
        assertThat(body.get("id").asLong()).isEqualTo(id);
        assertThat(body.get("workerId").asLong()).isEqualTo(worker.currentLease().workerId());
        assertThat(body.get("sequence").asLong()).isNotNegative();
        Instant timestamp = Instant.parse(body.get("timestamp").asString());
        assertThat(timestamp).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));
        assertThat(worker.decode(id).timestamp()).isEqualTo(timestamp);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "1.5", "9223372036854775808", "+5", "05", "%205", "5%20"})
    void decodeOfANegativeOrNonNumericIdIsABadRequest(String id) throws Exception {
        Response response = get("/ids/decode/" + id);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body().get("parameter").asString()).isEqualTo("id");
        assertThat(response.body().get("detail").asString()).contains("non-negative");
    }
}
