package io.github.idworker.sample;

import io.github.idworker.snowflake.RedisIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /orders} and {@code GET /orders/{id}} of the sample as it starts without a profile (Redis for the
 * worker and the serial numbers, embedded here on a free port; H2 in memory), over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.data.redis.port=0")
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OrderEndpointTest {

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    @LocalServerPort
    int port;
    @Autowired
    RedisIdWorker idWorker;
    @Autowired
    DataSource dataSource;

    private OrderHttp http() {
        return new OrderHttp(port);
    }

    @Test
    void anOrderGetsASnowflakeIdADailyOrderNumberAndAnInvoiceNumberAndIsReadBack() throws Exception {
        // the order number carries the day in Shanghai when it was handed out: the day before or after the call
        String dayBefore = LocalDate.now(SHANGHAI).format(DAY);
        OrderHttp.Reply created = http().post("{\"customer\":\"  ada \",\"amount\":12.5}");
        String dayAfter = LocalDate.now(SHANGHAI).format(DAY);

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.contentType()).startsWith("application/json");
        assertThat(created.location()).isEqualTo("/orders/" + created.id());
        assertThat(created.body().get("id").isString()).as("the id is a JSON string").isTrue();
        assertThat(idWorker.decode(created.id()).workerId()).isEqualTo(idWorker.currentLease().workerId());
        assertThat(created.body().get("orderNo").asString()).matches("ORD\\d{14}")
                .satisfiesAnyOf(no -> assertThat(no).startsWith("ORD" + dayBefore),
                        no -> assertThat(no).startsWith("ORD" + dayAfter));
        assertThat(created.body().get("invoiceNo").asLong()).isGreaterThan(100_000);
        assertThat(created.body().get("customer").asString()).isEqualTo("ada");
        assertThat(created.body().get("amount").decimalValue()).isEqualByComparingTo("12.50");

        OrderHttp.Reply read = http().get(created.location());
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.body()).isEqualTo(created.body());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"amount":1}                                   | customer | customer is required
            {"customer":"   ","amount":1}                  | customer | customer is required
            {"customer":["ada"],"amount":1}                | customer | customer must be a string
            {"customer":"ada"}                             | amount   | amount is required
            {"customer":"ada","amount":null}               | amount   | amount is required
            {"customer":"ada","amount":0}                  | amount   | amount must be above 0
            {"customer":"ada","amount":-3}                 | amount   | amount must be above 0
            {"customer":"ada","amount":10000000000}        | amount   | amount must be above 0 and at most
            {"customer":"ada","amount":1.005}              | amount   | amount must have at most two decimal places
            {"customer":"ada","amount":"twelve"}           | amount   | amount must be a number
            """)
    void aBadFieldIsA400ProblemNamingIt(String body, String field, String detail) throws Exception {
        OrderHttp.Reply refused = http().post(body);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.body().get("field").asString()).isEqualTo(field);
        assertThat(refused.body().get("detail").asString()).startsWith(detail);
    }

    @Test
    void servesTheStartersStatusPageAndTheEndpointItReads() throws Exception {
        // idworker.status-page.enabled=true in the sample's application.yml: the same file the ID server serves
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> page = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/status")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(page.body()).contains("<title>idworker status</title>");
        HttpResponse<String> report = client.send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + port + "/actuator/idworker")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(report.statusCode()).isEqualTo(200);
        assertThat(report.body()).contains("\"endOfLife\"");
    }

    @Test
    void aCustomerLongerThanTheColumnIsA400NamingIt() throws Exception {
        String name = "a".repeat(NewOrder.MAX_CUSTOMER_LENGTH + 1);
        OrderHttp.Reply refused = http().post("{\"customer\":\"" + name + "\",\"amount\":1}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().get("field").asString()).isEqualTo("customer");
        assertThat(refused.body().get("detail").asString()).contains("at most 100 characters");
    }

    @Test
    void aBodyThatIsNoJsonObjectIsA400SayingWhatIsExpected() throws Exception {
        for (String body : List.of("", "customer=ada", "{\"customer\":\"ada\",")) {
            OrderHttp.Reply refused = http().post(body);

            assertThat(refused.status()).as(body).isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.body().get("detail").asString()).contains("JSON object");
        }
    }

    @Test
    void anUnknownIdIsA404AndAnIdThatIsNoNumberA400NamingIt() throws Exception {
        OrderHttp.Reply missing = http().get("/orders/" + idWorker.nextId());
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.contentType()).startsWith("application/problem+json");
        assertThat(missing.body().get("title").asString()).isEqualTo("Order not found");

        OrderHttp.Reply notANumber = http().get("/orders/ORD20261126000001");
        assertThat(notANumber.status()).isEqualTo(400);
        assertThat(notANumber.body().get("field").asString()).isEqualTo("id");
    }

    @Test
    void ordersCreatedAtOnceAllGetDistinctIdsAndNumbers() throws Exception {
        int threads = 8;
        int perThread = 25;
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<List<OrderHttp.Reply>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                String customer = "customer-" + t;
                results.add(callers.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    List<OrderHttp.Reply> replies = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        replies.add(http().post("{\"customer\":\"" + customer + "\",\"amount\":" + (i + 1) + "}"));
                    }
                    return replies;
                }));
            }
            Set<Long> ids = new HashSet<>();
            Set<String> orderNumbers = new HashSet<>();
            Set<Long> invoiceNumbers = new HashSet<>();
            for (Future<List<OrderHttp.Reply>> result : results) {
                for (OrderHttp.Reply reply : result.get(40, TimeUnit.SECONDS)) {
                    assertThat(reply.status()).isEqualTo(201);
                    ids.add(reply.id());
                    orderNumbers.add(reply.body().get("orderNo").asString());
                    invoiceNumbers.add(reply.body().get("invoiceNo").asLong());
                }
            }
            int orders = threads * perThread;
            assertThat(ids).hasSize(orders);
            assertThat(orderNumbers).hasSize(orders);
            assertThat(invoiceNumbers).hasSize(orders);
            long stored = JdbcClient.create(dataSource).sql("SELECT COUNT(*) FROM orders WHERE id IN (:ids)")
                    .param("ids", ids).query(Long.class).single();
            assertThat(stored).isEqualTo(orders);
        } finally {
            callers.shutdownNow();
        }
    }
}
