package io.github.idworker.test.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Races of the refill around a Redis loss and operators' edits, checked by an adversarial review (they hold):
 * a refiller whose reservation commits but returns only after its lock expired and another node seeded and
 * appended; a table restored from a backup (current_offset lowered) under an intact Redis.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisIdPoolsRaceTest {

    private PoolRedisHarness harness;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void open() {
        harness = new PoolRedisHarness("jdbc:h2:mem:pool-race;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        harness.close();
    }

    private PoolEntity manualEntity() {
        return harness.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100).maxPoolSize(1000L)
                .thresholdPercent(50).checkInterval(Duration.ofHours(1)));
    }

    private static List<Long> drain(RedisIdPools node, String entity, int takes) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < takes; i++) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try {
                    for (long id : node.take(entity, 100)) {
                        out.add(id);
                    }
                    break;
                } catch (PoolEmptyException | CenterUnavailableException e) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    node.checkNow(entity);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }
        }
        return out;
    }

    private static void assertStrictlyIncreasing(List<Long> ids) {
        for (int i = 1; i < ids.size(); i++) {
            assertThat(ids.get(i)).as("ID %d of %d", i, ids.size()).isGreaterThan(ids.get(i - 1));
        }
    }

    @Test
    void aReservationReturningAfterItsLockExpiredAndAnotherNodeSeededIsNeverAppended() throws Exception {
        PoolEntity entity = manualEntity();
        JdbcPoolStore real = harness.newStore();
        AtomicBoolean stallNext = new AtomicBoolean();
        CountDownLatch committed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        PoolStore stalling = new PoolStore() {
            @Override
            public PoolEntity register(PoolEntity e, PoolEnvironment env) {
                return real.register(e, env);
            }

            @Override
            public Optional<PoolEntity> find(String key) {
                return real.find(key);
            }

            @Override
            public List<PoolEntity> findAll() {
                return real.findAll();
            }

            @Override
            public PoolReservation reserve(String key, int chunks, PoolEnvironment env) {
                PoolReservation r = real.reserve(key, chunks, env);
                if (stallNext.compareAndSet(true, false)) {
                    committed.countDown(); // committed in the table; the reply is slow to come back
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return r;
            }

            @Override
            public String description() {
                return real.description();
            }
        };
        UnifiedJedis jedis = EmbeddedRedisSupport.newClient();
        closing.add(jedis);
        RedisIdPools slow = new RedisIdPools(new JedisScriptExecutor(jedis), stalling,
                PoolRedisHarness.options().lockTtl(Duration.ofMillis(100)).build());
        closing.add(slow);
        RedisIdPools fast = harness.newNode();
        fast.register(entity);
        List<Long> taken = new ArrayList<>(drain(fast, entity.key(), 3));
        harness.admin().del(PoolRedisHarness.metaKey(entity.key())); // Redis lost the pool
        stallNext.set(true);
        Thread refill = new Thread(() -> slow.checkNow(entity.key()));
        refill.start();
        assertThat(committed.await(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200); // the slow refiller's lock expires
        taken.addAll(drain(fast, entity.key(), 5)); // the fast node seeds above the slow one's reservation
        release.countDown();
        refill.join(30_000);
        taken.addAll(drain(fast, entity.key(), 12));
        assertStrictlyIncreasing(taken);
        assertThat(slow.droppedIds()).as("the slow refiller's reservation was dropped").isGreaterThan(0);
    }

    @Test
    void aTableRestoredFromABackupUnderAnIntactRedisOnlyMakesGaps() {
        PoolEntity entity = manualEntity();
        RedisIdPools node = harness.newNode();
        node.register(entity);
        List<Long> taken = new ArrayList<>(drain(node, entity.key(), 25));
        // the backup of long ago, the whole row: current_offset with the reserved_to of its time (lowering
        // current_offset alone is refused, PoolRowMovedBackException; see the pool store's contract kit)
        harness.setColumn(entity.key(), "current_offset", 500);
        harness.setColumn(entity.key(), "reserved_to", 500);
        taken.addAll(drain(node, entity.key(), 40));
        assertStrictlyIncreasing(taken);
    }
}
