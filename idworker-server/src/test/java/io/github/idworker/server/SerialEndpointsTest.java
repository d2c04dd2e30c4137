package io.github.idworker.server;

import io.github.idworker.serial.redis.RedisSerialNumbers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /serials/{rule}} in the zero-setup profile: strict serial numbers ({@code SerialMode.STRICT}) from one
 * stock in the embedded Redis (on a free port) above high-waters in the in-memory H2. Besides the common contract:
 * consecutive numbers across calls, and first come, first served across concurrent requests.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms",
        // a rule of this test only: numbers 1 to 3, at most 2 per call
        "idworker.serial.rules.tiny.prefix=T", "idworker.serial.rules.tiny.width=1", "idworker.serial.rules.tiny.max=3",
        "idworker.serial.rules.tiny.min-batch=1", "idworker.serial.rules.tiny.max-batch=2"})
class SerialEndpointsTest extends AbstractSerialEndpointsTest {

    @Autowired
    ApplicationContext context;

    private static long number(String serial, int width) {
        return Long.parseLong(serial.substring(serial.length() - width));
    }

    @Test
    void serialsComeFromTheStrictRedisNumbers() {
        assertThat(context.getBean("serialNumbers")).isInstanceOf(RedisSerialNumbers.class).isSameAs(serials);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"order,6", "invoice,8"})
    void twoCallsInARowGetConsecutiveNumbers(String rule, int width) throws Exception {
        String one = get("/serials/" + rule).strings().get(0);
        List<String> next = get("/serials/" + rule + "?count=2").strings();
        if (samePeriod(one, next.get(1))) {
            assertThat(number(next.get(0), width)).isEqualTo(number(one, width) + 1);
            assertThat(number(next.get(1), width)).isEqualTo(number(one, width) + 2);
            assertThat(next.get(0).substring(0, next.get(0).length() - width))
                    .isEqualTo(one.substring(0, one.length() - width));
        }
    }

    @Test
    void aCountAboveTheRulesMaxBatchIsABadRequestAndARuleUsedUpIsAConflict() throws Exception {
        SampleHttp.Response tooMany = get("/serials/tiny?count=3");
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.body().get("parameter").asString()).isEqualTo("count");
        assertThat(tooMany.body().get("detail").asString()).contains("max-batch of serial rule 'tiny'");

        assertThat(get("/serials/tiny?count=2").strings()).containsExactly("T1", "T2");
        assertThat(get("/serials/tiny?count=2").status()).as("only T3 is left: all or nothing").isEqualTo(409);
        assertThat(get("/serials/tiny").strings()).containsExactly("T3");

        SampleHttp.Response usedUp = get("/serials/tiny");
        assertThat(usedUp.status()).isEqualTo(409);
        assertThat(usedUp.contentType()).startsWith("application/problem+json");
        assertThat(usedUp.body().get("title").asString()).isEqualTo("Serial rule exhausted for this period");
        assertThat(usedUp.body().get("rule").asString()).isEqualTo("tiny");
        assertThat(usedUp.body().get("period").asString()).isEqualTo("all");
        assertThat(usedUp.body().get("max").asLong()).isEqualTo(3);
        assertThat(usedUp.body().get("detail").asString()).contains("idworker.serial.rules.tiny.max");
    }

    @Test
    void invoiceIsFirstComeFirstServedAcrossConcurrentRequests() throws Exception {
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
                    for (int i = 0; i < 25; i++) {
                        int count = 1 + (thread * 25 + i) % 300;
                        long begin = System.nanoTime();
                        List<String> serials = get("/serials/invoice?count=" + count).strings();
                        long end = System.nanoTime();
                        assertThat(serials).hasSize(count).isSorted();
                        calls.add(new Call(begin, end, number(serials.get(0), 8),
                                number(serials.get(count - 1), 8)));
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
            assertThat(c.last() - c.first()).as("one call's numbers are contiguous").isGreaterThanOrEqualTo(0);
            for (long n = c.first(); n <= c.last(); n++) {
                assertThat(all.add(n)).as("number %s handed out twice", n).isTrue();
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
            assertThat(c.first()).as("first number of a request that began after others returned")
                    .isGreaterThan(highestEnded);
        }
        // nothing failed, so the numbers of all calls together have no gap
        long lowest = all.stream().mapToLong(Long::longValue).min().orElseThrow();
        long highest = all.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(highest - lowest + 1).as("contiguous while nothing fails").isEqualTo(all.size());
    }
}
