package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Strict serial numbers with the rule table on an H2 server this test stops and starts again: while the database
 * is down, a rule whose stock is in Redis keeps being served (the high-water of those numbers was raised before
 * they entered Redis), a rule without a stock for today gets a 503 problem document after
 * {@code idworker.serial.redis.max-wait}, and after the database is back that rule is served by itself.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms",
        "idworker.segment.initialize-schema=always", "idworker.serial.initialize-schema=always",
        // H2 over TCP is no embedded database (Spring Boot's rule), so every table the sample uses is created here
        "idworker.pool.initialize-schema=always", "idworker.service.initialize-schema=always",
        "idworker.serial.redis.max-wait=1s", "spring.datasource.hikari.connection-timeout=250",
        "spring.datasource.hikari.validation-timeout=250"})
@Tag("slow")
@ExtendWith(OutputCaptureExtension.class)
class SerialStoreDownTest {

    private static final int DB_PORT = EmbeddedRedisInitializer.freePort();
    private static final String DB_NAME = "serial-" + UUID.randomUUID();
    private static Server server = start();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> "jdbc:h2:tcp://127.0.0.1:" + DB_PORT + "/mem:" + DB_NAME
                + ";DB_CLOSE_DELAY=-1");
        registry.add("spring.datasource.username", () -> "sa");
    }

    private static Server start() {
        try {
            return Server.createTcpServer("-tcpPort", Integer.toString(DB_PORT), "-ifNotExists").start();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot start H2 on port " + DB_PORT, e);
        }
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @Test
    void aDatabaseOutageLeavesTheRedisStockServingAndIsA503ForAnEmptyStockUntilItIsBack(CapturedOutput output) throws Exception {
        // a refill of min-batch (100) numbers lands in Redis with the first call
        assertThat(SampleHttp.get(port, "/serials/invoice?count=10").strings())
                .containsExactly("INV-00000001", "INV-00000002", "INV-00000003", "INV-00000004", "INV-00000005",
                        "INV-00000006", "INV-00000007", "INV-00000008", "INV-00000009", "INV-00000010");

        server.stop();
        try {
            List<String> fromStock = SampleHttp.get(port, "/serials/invoice?count=10").strings();
            assertThat(fromStock).as("served from the Redis stock while the database is down")
                    .containsExactly("INV-00000011", "INV-00000012", "INV-00000013", "INV-00000014", "INV-00000015",
                            "INV-00000016", "INV-00000017", "INV-00000018", "INV-00000019", "INV-00000020");

            SampleHttp.Response empty = SampleHttp.get(port, "/serials/order");
            assertThat(empty.status()).isEqualTo(503);
            assertThat(empty.contentType()).startsWith("application/problem+json");
            // the cause names the table and the JDBC URL: it is logged under the errorId, not sent
            assertThat(SegmentStoreDownTest.logLineOf(empty, output)).contains("'order'")
                    .contains("idworker.serial.redis.max-wait");
        } finally {
            server = start();
        }

        SampleHttp.Response back = untilServed("/serials/order?count=2");
        assertThat(back.status()).isEqualTo(200);
        assertThat(back.strings()).hasSize(2).allMatch(s -> s.matches("ORD\\d{8}00000[12]"));
    }

    /**
     * Asks until the answer is 200, for at most 10 s, pausing 600 ms between tries (see
     * {@code SegmentStoreDownTest}: HikariCP re-checks a connection idle for more than 500 ms).
     */
    private SampleHttp.Response untilServed(String path) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            Thread.sleep(600);
            SampleHttp.Response response = SampleHttp.get(port, path);
            if (response.status() == 200 || System.nanoTime() - deadline > 0) {
                return response;
            }
        }
    }
}
