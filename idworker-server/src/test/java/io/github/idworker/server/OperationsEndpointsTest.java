package io.github.idworker.server;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operator's view of the zero-setup sample over real HTTP: {@code /actuator/idworker} lists the leased worker
 * and the segment tags in use, {@code /actuator/health} has idworker's components UP, {@code /actuator/metrics}
 * has the issued-IDs meter. Embedded Redis on a free port, H2 in memory, a random namespace and tag.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class OperationsEndpointsTest {

    @LocalServerPort
    int port;

    @Test
    void idworkerEndpointListsTheWorkerAndTheSegmentTag() throws Exception {
        String tag = "t-" + UUID.randomUUID().toString().substring(0, 13);
        SampleHttp.Response next = SampleHttp.get(port, "/ids/next");
        assertThat(next.status()).as("%s", next.body()).isEqualTo(200);
        SampleHttp.Response segment0 = SampleHttp.get(port, "/ids/segment/" + tag);
        assertThat(segment0.status()).as("%s", segment0.body()).isEqualTo(200);

        SampleHttp.Response response = SampleHttp.get(port, "/actuator/idworker");
        assertThat(response.status()).isEqualTo(200);
        JsonNode body = response.body();
        for (String array : new String[] {"workers", "segments", "sequences", "serialRules", "pools"}) {
            assertThat(body.get(array).isArray()).as(array).isTrue();
        }
        JsonNode worker = body.get("workers").get(0);
        assertThat(worker.get("state").asString()).isEqualTo("issuing");
        assertThat(worker.get("workerId").isNumber()).isTrue();
        assertThat(worker.get("highWater").asString()).endsWith("Z");
        assertThat(worker.get("issued").asLong()).isPositive();
        JsonNode segment = null;
        for (JsonNode s : body.get("segments")) {
            if (s.get("tag").asString().equals(tag)) {
                segment = s;
            }
        }
        assertThat(segment).as("segment tag " + tag).isNotNull();
        assertThat(segment.get("current").get("start").asLong()).isPositive();
        assertThat(segment.get("issued").asLong()).isEqualTo(1);
        assertThat(body.get("serialRules").findValuesAsString("rule")).contains("order", "invoice");
    }

    @Test
    void healthHasIdworkersComponentsUpAndMetricsHaveTheIssuedIds() throws Exception {
        assertThat(SampleHttp.get(port, "/ids/next").status()).isEqualTo(200);
        // right after startup a component may still be coming up (the ID pool's first refill, a renewal of a lease
        // whose first high-water lay just past its floor); UP within seconds is what an operator sees
        SampleHttp.Response health = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> SampleHttp.get(port, "/actuator/health"), r -> {
                    if (r.status() != 200) {
                        System.out.println("health not UP yet: " + r.body());
                    }
                    return r.status() == 200;
                });
        assertThat(health.status()).as("%s", health.body()).isEqualTo(200);
        JsonNode components = health.body().get("components");
        for (String name : new String[] {"idWorker", "idworkerSegments", "idworkerSequences", "idworkerSerials"}) {
            assertThat(components.get(name).get("status").asString()).as(name).isEqualTo("UP");
        }
        SampleHttp.Response issued = SampleHttp.get(port, "/actuator/metrics/idworker.ids.issued?tag=mode:snowflake");
        assertThat(issued.status()).isEqualTo(200);
        assertThat(issued.body().get("measurements").get(0).get("value").asDouble()).isPositive();
    }
}
