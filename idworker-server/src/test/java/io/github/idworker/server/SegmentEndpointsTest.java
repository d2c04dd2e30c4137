package io.github.idworker.server;

import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /ids/segment/{tag}} and {@code /ids/sequence/{tag}} over a real server in the zero-setup profile:
 * embedded Redis on a free port, H2 in memory, tags created on first use.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class SegmentEndpointsTest {

    @LocalServerPort
    int port;

    @Autowired
    SegmentIdGenerators segments;

    @Autowired
    RedisSequenceGenerators sequences;

    private static String newTag() {
        return "t-" + UUID.randomUUID().toString().substring(0, 13);
    }

    private SampleHttp.Response get(String path) throws Exception {
        return SampleHttp.get(port, path);
    }

    @Test
    void segmentOrderJustWorks() throws Exception {
        SampleHttp.Response response = get("/ids/segment/order");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.contentType()).startsWith("application/json");
        assertThat(response.ids()).hasSize(1);
        assertThat(response.ids()[0]).isPositive();
        assertThat(segments.tags()).contains("order");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"segment", "sequence"})
    void aNewTagStartsAtOneAndCountsUpWithoutCount(String endpoint) throws Exception {
        String tag = newTag();
        assertThat(get("/ids/" + endpoint + "/" + tag).ids()).containsExactly(1);
        assertThat(get("/ids/" + endpoint + "/" + tag).ids()).containsExactly(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"segment", "sequence"})
    void asStringAnswersTheNumbersAsJsonStrings(String endpoint) throws Exception {
        String tag = newTag();
        assertThat(get("/ids/" + endpoint + "/" + tag + "?count=3&as=string").strings()).containsExactly("1", "2", "3");
        assertThat(get("/ids/" + endpoint + "/" + tag + "?as=number").ids()).containsExactly(4);
        assertThat(get("/ids/" + endpoint + "/" + tag + "?count=2&as=base62-fixed").strings())
                .containsExactly("00000000005", "00000000006");
        SampleHttp.Response refused = get("/ids/" + endpoint + "/" + tag + "?as=json");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().path("parameter").asString()).isEqualTo("as");
        // refused before the endpoint ran: the next number is still 7
        assertThat(get("/ids/" + endpoint + "/" + tag).ids()).containsExactly(7);
    }

    @ParameterizedTest(name = "{0} count={1}")
    @CsvSource({"segment,1", "segment,2", "segment,4096", "segment,10000",
            "sequence,1", "sequence,2", "sequence,4096", "sequence,10000"})
    void returnsCountDistinctIncreasingNumbers(String endpoint, int count) throws Exception {
        long[] ids = get("/ids/" + endpoint + "/" + newTag() + "?count=" + count).ids();
        assertThat(ids).hasSize(count).isSorted().doesNotHaveDuplicates();
        assertThat(ids[0]).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"segment", "sequence"})
    void eachRequestContinuesAboveThePreviousOne(String endpoint) throws Exception {
        String tag = newTag();
        long previous = 0;
        for (int i = 0; i < 30; i++) {
            long[] ids = get("/ids/" + endpoint + "/" + tag + "?count=" + (1 + i * 97)).ids();
            assertThat(ids[0]).isGreaterThan(previous);
            assertThat(ids).isSorted();
            previous = ids[ids.length - 1];
        }
    }

    @Test
    void sequenceIsFirstComeFirstServedAcrossConcurrentRequests() throws Exception {
        String tag = newTag();
        record Call(long begin, long end, long first, long last) {
        }
        ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < 40; i++) {
                        int count = 1 + (thread * 40 + i) % 300;
                        long begin = System.nanoTime();
                        long[] ids = get("/ids/sequence/" + tag + "?count=" + count).ids();
                        long end = System.nanoTime();
                        assertThat(ids).hasSize(count).isSorted();
                        calls.add(new Call(begin, end, ids[0], ids[ids.length - 1]));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Call> byEnd = new ArrayList<>(calls);
        byEnd.sort(Comparator.comparingLong(Call::end));
        Set<Long> all = new HashSet<>();
        for (Call c : byEnd) {
            for (long id = c.first(); id <= c.last(); id++) {
                assertThat(all.add(id)).as("number %s issued twice", id).isTrue();
            }
        }
        // whenever one request returned before another began, all of its numbers are smaller
        long highestEnded = Long.MIN_VALUE;
        int e = 0;
        List<Call> byBegin = new ArrayList<>(calls);
        byBegin.sort(Comparator.comparingLong(Call::begin));
        for (Call c : byBegin) {
            while (e < byEnd.size() && byEnd.get(e).end() < c.begin()) {
                highestEnded = Math.max(highestEnded, byEnd.get(e).last());
                e++;
            }
            assertThat(c.first()).as("first number of a request that began after others returned").isGreaterThan(highestEnded);
        }
        assertThat(sequences.forTag(tag).installedRanges()).as("refills under concurrency").isGreaterThan(1);
    }

    @ParameterizedTest(name = "{0} count={1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            segment  | 0
            segment  | 10001
            segment  | abc
            segment  | -1
            segment  | ""
            segment  | 99999999999
            sequence | 0
            sequence | 10001
            sequence | abc
            sequence | -1
            sequence | ""
            sequence | 99999999999
            """)
    void aCountOutsideOneToTenThousandIsABadRequestNamingCount(String endpoint, String count) throws Exception {
        SampleHttp.Response response = get("/ids/" + endpoint + "/order?count=" + count);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body().get("parameter").asString()).isEqualTo("count");
        assertThat(response.body().get("detail").asString()).contains("count").contains("from 1 to 10000");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"segment,a%20b", "segment,%7Bbad%7D", "sequence,%7Bbad%7D", "sequence,a%2Bb",
            "segment,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})
    void aTagOutsideTheAllowedCharactersIsABadRequestNamingTag(String endpoint, String tag) throws Exception {
        SampleHttp.Response response = get("/ids/" + endpoint + "/" + tag);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body().get("parameter").asString()).isEqualTo("tag");
        assertThat(response.body().get("detail").asString()).contains("tag").contains("1 to 64");
    }
}
