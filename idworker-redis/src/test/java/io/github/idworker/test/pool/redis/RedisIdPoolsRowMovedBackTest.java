package io.github.idworker.test.pool.redis;

import io.github.idworker.IdWorkerException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ID pools over a row an operator moved back ({@code current_offset} lowered by hand): Redis refuses appends
 * below the pool's high-water only while it keeps it; once Redis lost the pool (a restart without persistence, a
 * new Redis; here its keys are deleted), the table's {@code reserved_to} must refuse the row. 16 threads on the
 * node that was running and on one started afterwards, each refused take followed by a refill check: no ID
 * twice, nothing reserved; raising {@code current_offset} again is the recovery.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisIdPoolsRowMovedBackTest {

    private static final int THREADS = 16;

    private PoolRedisHarness harness;

    /** The Redis and database under test; the real-services subclass points it at Redis 7 and MariaDB. */
    protected PoolRedisHarness createHarness() {
        return new PoolRedisHarness("jdbc:h2:mem:pool-moved-back;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }

    @BeforeEach
    void open() {
        harness = createHarness();
    }

    @AfterEach
    void close() {
        harness.close();
    }

    /** Takes {@code count} IDs, running a refill check after each refused take; empty when none came. */
    private static long[] take(RedisIdPools node, String key, int count, int attempts) {
        for (int i = 0; i < attempts; i++) {
            try {
                return node.take(key, count);
            } catch (PoolEmptyException | PoolTimeoutException e) {
                node.checkNow(key);
            }
        }
        return new long[0];
    }

    private long reservedTo(String key) throws SQLException {
        try (Connection c = harness.dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT reserved_to FROM idworker_id_pool WHERE entity_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void aRefillAfterRedisLostTheListOfARowMovedBackHandsOutNoIdTwice() throws Exception {
        PoolEntity entity = harness.entity(b -> b.type(IncreasingType.MONOTONIC).step(100).maxPoolSize(1_000L)
                .thresholdPercent(50).maxPerRequest(20).maxPerSecond(1_000_000).checkInterval(Duration.ofMillis(50)));
        String key = entity.key();
        RedisIdPools running = harness.newNode();
        running.register(entity);
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        while (issued.size() < 5_000) {
            for (long id : take(running, key, 10, 100)) {
                assertThat(issued.add(id)).as("ID %s handed out twice before the row moved back", id).isTrue();
            }
        }
        long current = harness.currentOffset(key); // or a refill less: the running node refills meanwhile
        harness.setColumn(key, "current_offset", current / 2);
        for (String suffix : List.of("ids", "meta", "rate", "lock")) { // Redis lost the pool
            harness.admin().del("{" + PoolRedisHarness.PREFIX + ":pool:" + key + "}:" + suffix);
        }

        RedisIdPools fresh = harness.newNode();
        fresh.register(entity);
        ConcurrentLinkedQueue<Long> repeats = new ConcurrentLinkedQueue<>();
        AtomicInteger after = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ConcurrentLinkedQueue<IdWorkerException> failures = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                RedisIdPools node = t % 2 == 0 ? fresh : running;
                takers.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    // 16 × 25 takes, each refused one followed by a check: 100 each took a minute on MariaDB in CI
                    // and proved no more (every take after the loss is refused, or the test fails)
                    for (int i = 0; i < 25; i++) {
                        try {
                            for (long id : node.take(key, 10)) {
                                after.incrementAndGet();
                                if (!issued.add(id)) {
                                    repeats.add(id);
                                }
                            }
                        } catch (PoolEmptyException | PoolTimeoutException e) {
                            refused.incrementAndGet();
                            node.checkNow(key);
                        } catch (IdWorkerException e) {
                            failures.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("pool row moved back from %d to %d, Redis lost the list: %d IDs taken afterwards, %d of "
                + "them handed out before; %d takes refused, %d failed otherwise%n", current, current / 2,
                after.get(), repeats.size(), refused.get(), failures.size());
        assertThat(repeats).as("IDs handed out twice").isEmpty();
        assertThat(after.get()).as("IDs taken after Redis lost the pool").isZero();
        assertThat(failures).as("takes that failed otherwise than empty").isEmpty();
        assertThat(harness.currentOffset(key)).as("nothing reserved").isEqualTo(current / 2);
        long reservedTo = reservedTo(key);
        assertThat(reservedTo).isGreaterThanOrEqualTo(current);
        for (RedisIdPools node : List.of(running, fresh)) {
            // a check that found the other node's refill lock held ends without a failure of its own
            for (int i = 0; i < 50 && node.snapshot(key).orElseThrow().lastCheckFailure() == null; i++) {
                node.checkNow(key);
            }
            assertThat(node.snapshot(key).orElseThrow().lastCheckFailure()).as("the refill failure of %s", node)
                    .contains("'" + key + "'", "moved back", "current_offset " + current / 2,
                            "reserved_to " + reservedTo);
        }

        harness.setColumn(key, "current_offset", reservedTo); // the recovery
        long highest = issued.stream().mapToLong(Long::longValue).max().orElseThrow();
        for (int i = 0; i < 50; i++) {
            for (long id : take(fresh, key, 10, 100)) {
                assertThat(id).as("an ID after the recovery").isGreaterThan(highest);
                assertThat(issued.add(id)).isTrue();
            }
        }
    }
}
