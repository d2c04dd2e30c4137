package io.github.idworker.test.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store hook {@link RedisSequenceManagerStore#stall}: with the server's writers paused every lease script
 * (EVALSHA, which Redis holds like a write) hangs, and the Redis client's socket timeout bounds the call; after
 * the stall the same manager works again. On the embedded Redis 6.2; {@code RealRedisStallTest} repeats it on
 * Redis 7.
 */
@Tag("exclusive")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisStallTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);

    private RedisSequenceManagerStore store;
    private String ns;

    /** The Redis under test. */
    protected RedisSequenceManagerStore createStore() {
        return RedisSequenceManagerStore.embedded();
    }

    @BeforeEach
    void open() {
        store = createStore();
        ns = "s-" + UUID.randomUUID().toString().substring(0, 13);
    }

    @AfterEach
    void close() {
        store.deleteNamespace(ns);
        store.close();
    }

    private LeaseRequest request() {
        return new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(), SKEW,
                "test-host", 42, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
    }

    @Test
    void everyLeaseCallOfAStalledNamespaceFailsWithinTheSocketTimeoutAndWorksAfterwards() throws Exception {
        RedisSequenceManager manager = store.newManager();
        WorkerLease lease = manager.borrow(request());
        try (AutoCloseable stall = store.stall(ns, lease.workerId())) {
            assertBoundedFailure("renew", () -> manager.renew(lease, lease.highWaterMillis() + 1_000));
            assertBoundedFailure("borrow", () -> manager.borrow(request()));
            assertBoundedFailure("return", () -> manager.giveBack(lease, lease.floorMillis() + 1));
            // reads still answer: the records are there, only writers wait
            assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
        }
        long started = System.nanoTime();
        WorkerLease renewed = manager.renew(lease, lease.highWaterMillis() + 2_000);
        assertThat(renewed.highWaterMillis()).isEqualTo(lease.highWaterMillis() + 2_000);
        // answered, not waited out: a connection the stall broke, handed out again, would cost a whole socket
        // timeout. That is the bound, rather than 1 s: a loaded 2-core machine stalls a thread for hundreds of ms
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(RedisTestClients.SOCKET_TIMEOUT);
    }

    private static void assertBoundedFailure(String call, Executable action) {
        long started = System.nanoTime();
        assertThatThrownBy(action::execute).as(call).isInstanceOf(CenterUnavailableException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        System.out.printf("stalled %s failed after %d ms (socket timeout %d ms)%n", call, took.toMillis(),
                RedisTestClients.SOCKET_TIMEOUT.toMillis());
        assertThat(took).as(call + " hung until the socket timeout")
                .isGreaterThanOrEqualTo(RedisTestClients.SOCKET_TIMEOUT.minusMillis(100))
                .isLessThan(RedisTestClients.SOCKET_TIMEOUT.plusSeconds(1));
    }
}
