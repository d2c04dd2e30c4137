package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import io.github.idworker.service.UnauthorizedException.Reason;
import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reviewer's replay over real HTTP: a signed pool call captured and replayed to both instances is refused; then
 * Redis restarts empty (the nonces lost) and the replay is still refused on both, 401 "unauthorized" and counted as
 * {@link Reason#STORE_RESET} (before the fix: {@code 200} with fresh IDs); fresh calls are admitted again once
 * stamped after the restart plus the guard (2 s here).
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PoolServiceStoreLossTest {

    private static final String SECRET = "loss-secret-0123456789abcdef";
    private static final String PATH = "/pools/orders/ids";
    private static final String QUERY = "count=3";
    private final RequestSigner signer = new RequestSigner("alpha", SECRET);

    private Map<String, String> signedNow() {
        return signer.sign("GET", PATH, QUERY, System.currentTimeMillis(), RequestSigner.newNonce());
    }

    /** Sends {@code call} until the instance reaches Redis again (no 503), at most 30 s. */
    private static SignedHttp.Response send(int port, Map<String, String> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            SignedHttp.Response response = SignedHttp.get(port, PATH + "?" + QUERY, call);
            if (response.status() != 503 || System.nanoTime() > deadline) {
                return response;
            }
            Thread.sleep(100);
        }
    }

    private static void unauthorized(SignedHttp.Response response, UnauthorizedCalls counts, Reason reason,
                                     long before) {
        assertThat(response.status()).as("%s", response.text()).isEqualTo(401);
        assertThat(response.problem("detail")).isEqualTo("unauthorized");
        assertThat(counts.count(reason)).as("counted as %s", reason.code()).isEqualTo(before + 1);
    }

    /** Fresh calls until one gets IDs; returns its timestamp. */
    private long firstFreshCallServed(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, String> call = signedNow();
            SignedHttp.Response response = send(port, call);
            if (response.status() == 200) {
                return Long.parseLong(call.get(RequestSigner.TIMESTAMP));
            }
            assertThat(response.status()).as("%s", response.text()).isEqualTo(401);
            assertThat(System.nanoTime()).as("a fresh call served within 30 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aCapturedCallStaysRefusedAfterRedisRestartsEmpty() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.embedded()) {
            String[] arguments = {"--idworker.pool.entities.orders.max-per-second=100000",
                    "--idworker.service.apps.alpha.secret=" + SECRET, "--idworker.service.apps.alpha.entities=orders",
                    "--idworker.service.store-reset-guard=2s"};
            ConfigurableApplicationContext one = environment.start(arguments);
            ConfigurableApplicationContext two = environment.start(arguments);
            List<Integer> ports = List.of(ServiceEnvironment.port(one), ServiceEnvironment.port(two));
            List<UnauthorizedCalls> counts = List.of(one.getBean(UnauthorizedCalls.class),
                    two.getBean(UnauthorizedCalls.class));

            firstFreshCallServed(ports.get(0));
            Map<String, String> captured = signedNow();
            assertThat(send(ports.get(0), captured).status()).isEqualTo(200);
            for (int i = 0; i < 2; i++) {
                long before = counts.get(i).count(Reason.REPLAY);
                unauthorized(send(ports.get(i), captured), counts.get(i), Reason.REPLAY, before);
            }

            long restartedAt = System.currentTimeMillis();
            environment.restartRedisEmpty();
            for (int i = 0; i < 2; i++) {
                long before = counts.get(i).count(Reason.STORE_RESET);
                long replays = counts.get(i).count(Reason.REPLAY);
                // send() repeats a 503 (the instance not yet reconnected): a replay admitted after the restart would
                // have recorded its nonce anew (answered 200, or 503 from the emptied pool), and its repetition
                // would be refused as a replay
                unauthorized(send(ports.get(i), captured), counts.get(i), Reason.STORE_RESET, before);
                assertThat(counts.get(i).count(Reason.REPLAY)).as("the replay admitted after the restart")
                        .isEqualTo(replays);
            }
            long served = firstFreshCallServed(ports.get(1));
            assertThat(served).as("stamped at least the guard after the restart")
                    .isGreaterThanOrEqualTo(restartedAt + 2_000);
            long before = counts.get(1).count(Reason.STORE_RESET);
            unauthorized(send(ports.get(1), captured), counts.get(1), Reason.STORE_RESET, before);
        }
    }
}
