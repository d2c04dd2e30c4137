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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The segment table on an H2 server this test stops and starts again: while it is down, a tag without numbers in
 * memory gets 503 from both endpoints (a refill timeout for {@code /ids/segment}, the unreachable database for
 * {@code /ids/sequence}), a tag whose range is already loaded keeps being served from memory, and after the
 * database is back both endpoints recover by themselves.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms",
        "idworker.segment.initialize-schema=always", "idworker.segment.max-wait=1s",
        // H2 over TCP is no embedded database (Spring Boot's rule), so every table the sample uses is created here
        "idworker.serial.initialize-schema=always", "idworker.pool.initialize-schema=always",
        "idworker.service.initialize-schema=always",
        "idworker.segment.redis.max-wait=1s", "spring.datasource.hikari.connection-timeout=250",
        "spring.datasource.hikari.validation-timeout=250"})
@Tag("slow")
@ExtendWith(OutputCaptureExtension.class)
class SegmentStoreDownTest {

    private static final int DB_PORT = freePort();
    private static final String DB_NAME = "seg-" + UUID.randomUUID();
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
    void aDatabaseOutageIsA503AndTheEndpointsRecoverAfterIt(CapturedOutput output) throws Exception {
        // a loaded range keeps serving while the database is away
        assertThat(SampleHttp.get(port, "/ids/segment/warm?count=10").ids()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);

        server.stop();
        try {
            SampleHttp.Response segment = SampleHttp.get(port, "/ids/segment/cold");
            assertThat(segment.status()).isEqualTo(503);
            assertThat(segment.contentType()).startsWith("application/problem+json");
            // the cause names the table and the JDBC URL: it is logged under the errorId, not sent
            assertThat(logLineOf(segment, output)).contains("'cold'").contains("idworker.segment.max-wait");

            SampleHttp.Response sequence = SampleHttp.get(port, "/ids/sequence/cold");
            assertThat(sequence.status()).isEqualTo(503);
            assertThat(logLineOf(sequence, output)).contains("'cold'");

            assertThat(SampleHttp.get(port, "/ids/segment/warm?count=10").ids()).containsExactly(11, 12, 13, 14, 15,
                    16, 17, 18, 19, 20);
        } finally {
            server = start();
        }

        assertThat(untilServed("/ids/segment/cold?count=2").ids()).containsExactly(1, 2);
        assertThat(untilServed("/ids/sequence/cold?count=2").ids()[0])
                .as("the Redis sequence's range comes from the same row, after the in-process one").isGreaterThan(2);
    }

    /**
     * The server's log line of the 503 problem document {@code response}: the body names no store (no JDBC URL, no
     * table, no host) and carries the errorId of the line, which has the cause.
     */
    static String logLineOf(SampleHttp.Response response, CapturedOutput output) {
        String body = response.body().toString();
        assertThat(body).doesNotContain("jdbc:").doesNotContain("idworker_").doesNotContain("127.0.0.1");
        String errorId = response.body().get("errorId").asString();
        assertThat(response.body().get("detail").asString()).contains(errorId);
        return output.getAll().lines().filter(l -> l.contains("errorId " + errorId)).findFirst()
                .orElseThrow(() -> new AssertionError("no log line with errorId " + errorId + " for " + body));
    }

    /**
     * Asks until the answer is 200, for at most 10 s. Pauses 600 ms between tries: the pool re-checks a connection
     * idle for more than 500 ms, and H2's "session closed" errors (SQLState 90121) do not make HikariCP evict the
     * connections the stopped server closed, as the 08xxx states of MySQL and PostgreSQL would.
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

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
