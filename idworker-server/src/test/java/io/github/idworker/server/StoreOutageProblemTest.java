package io.github.idworker.server;

import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Redis down, then the database down, every endpoint that needs the store answers a 503 problem document
 * that names no host, port, Redis key, table or JDBC URL, and whose {@code errorId} finds the server's log line
 * with the full (redacted) cause. Before the fix the body read e.g. "Cannot reach Redis at 127.0.0.1:57757 to run
 * segment-next (keys [{…:segment:order}:range])".
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StoreOutageProblemTest {

    private static final String SECRET = "outage-secret-0123456789abcdef";

    @Test
    void storeOutagesAre503sNamingNoStoreWithAnErrorIdFoundInTheLog(CapturedOutput output) throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.embedded()) {
            ConfigurableApplicationContext context = environment.start(
                    "--idworker.pool.entities.orders.max-per-second=100000",
                    "--idworker.service.apps.alpha.secret=" + SECRET, "--idworker.service.apps.alpha.entities=orders",
                    "--idworker.segment.redis.max-wait=1s", "--idworker.serial.redis.max-wait=1s",
                    "--idworker.segment.max-wait=1s", "--spring.datasource.hikari.connection-timeout=250",
                    "--spring.datasource.hikari.validation-timeout=250");
            int port = ServiceEnvironment.port(context);
            List<String> forbidden = List.of("127.0.0.1", "localhost", ":" + environment.redisPort,
                    environment.keyPrefix, environment.table("segment"), environment.table("serial"),
                    environment.table("pool"), environment.table("app"), "jdbc:", ":segment:", ":serial:", ":pool:",
                    ":app:");

            environment.stopRedis();
            RequestSigner signer = new RequestSigner("alpha", SECRET);
            Map<String, String> signed = signer.sign("GET", "/pools/orders/ids", "count=3",
                    System.currentTimeMillis(), RequestSigner.newNonce());
            List<SignedHttp.Response> redisDown = List.of(
                    SignedHttp.get(port, "/ids/sequence/order", Map.of()),
                    SignedHttp.get(port, "/serials/order", Map.of()),
                    SignedHttp.get(port, "/pools/orders/ids?count=3", signed));
            for (SignedHttp.Response response : redisDown) {
                checkProblem(response, forbidden, output, "Redis");
            }

            environment.stopDatabase();
            try {
                checkProblem(SignedHttp.get(port, "/ids/segment/cold", Map.of()), forbidden, output, "cold");
            } finally {
                environment.startDatabase();
                environment.restartRedisEmpty(); // for the environment's cleanup
            }
        }
    }

    /** A 503 problem document naming no store, whose errorId's log line holds {@code logged}. */
    private static void checkProblem(SignedHttp.Response response, List<String> forbidden, CapturedOutput output,
                                     String logged) {
        assertThat(response.status()).as("%s", response.text()).isEqualTo(503);
        assertThat(response.contentType()).startsWith("application/problem+json");
        for (String part : forbidden) {
            assertThat(response.text()).as("the body names no store").doesNotContain(part);
        }
        String errorId = response.problem("errorId");
        assertThat(errorId).as("errorId in %s", response.text()).matches("[0-9a-f]{16}");
        assertThat(response.problem("detail")).contains(errorId);
        String line = output.getAll().lines().filter(l -> l.contains("errorId " + errorId)).findFirst()
                .orElseThrow(() -> new AssertionError("no log line with errorId " + errorId));
        assertThat(line).as("the log line has the cause").contains(logged);
    }
}
