package io.github.idworker.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code idworker.segment.auto-create=false} only registered tags exist: {@code order} is listed under
 * {@code idworker.segment.tags}, any other tag is a 404 naming it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms",
        "idworker.segment.auto-create=false", "idworker.segment.tags.order.start-after=1000"})
class SegmentEndpointsWithoutAutoCreateTest {

    @LocalServerPort
    int port;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"segment", "sequence"})
    void anUnknownTagIsNotFoundNamingIt(String endpoint) throws Exception {
        SampleHttp.Response response = SampleHttp.get(port, "/ids/" + endpoint + "/no-such-tag?count=3");
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body().get("tag").asString()).isEqualTo("no-such-tag");
        assertThat(response.body().get("title").asString()).isEqualTo("Unknown segment tag");
        assertThat(response.body().get("detail").asString()).contains("'no-such-tag'")
                .contains("idworker.segment.auto-create");
        // asking again still finds nothing: no row was created
        assertThat(SampleHttp.get(port, "/ids/" + endpoint + "/no-such-tag").status()).isEqualTo(404);
    }

    @Test
    void aRegisteredTagStartsAfterItsStartAfter() throws Exception {
        long[] segment = SampleHttp.get(port, "/ids/segment/order?count=5").ids();
        long[] sequence = SampleHttp.get(port, "/ids/sequence/order?count=5").ids();
        assertThat(segment).isSorted();
        assertThat(segment[0]).isGreaterThan(1000);
        assertThat(sequence[0]).isGreaterThan(1000);
        // both draw ranges from the one row of the tag, so they never meet
        for (long id : sequence) {
            assertThat(segment).doesNotContain(id);
        }
    }
}
