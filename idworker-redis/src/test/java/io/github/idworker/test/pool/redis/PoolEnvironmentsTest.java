package io.github.idworker.test.pool.redis;

import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two fully independent deployments — each its own Redis and its own database — configured as environments 0 and
 * 1 of 2 hand out a million IDs each of the same entity, and none collides: environment {@code e} hands out only
 * IDs with {@code id mod 2 = e}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PoolEnvironmentsTest {

    static final int TAKES = 1_000;
    static final int BATCH = 1_000;

    /** One environment's IDs of {@code key}, taken {@value #BATCH} at a time. */
    static long[] millionIds(PoolRedisHarness harness, PoolEnvironment environment, String key) {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(BATCH).maxPerSecond(10_000_000).step(100_000)
                .maxPoolSize(1_000_000L).thresholdPercent(50).checkInterval(Duration.ofMillis(50)), key);
        RedisIdPools node = harness.newNode(PoolRedisHarness.options().environment(environment).build());
        node.register(entity);
        long[] ids = new long[TAKES * BATCH];
        int n = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (n < ids.length) {
            try {
                System.arraycopy(node.take(key, BATCH), 0, ids, n, BATCH);
                n += BATCH;
            } catch (PoolEmptyException | PoolTimeoutException e) {
                assertThat(System.nanoTime()).as("took " + n + " IDs in time").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }
        return ids;
    }

    /** Both environments' IDs: each in its own residue class, no ID twice, no ID in both. */
    static void assertDisjoint(long[] zero, long[] one) {
        assertThat(Arrays.stream(zero).allMatch(id -> id % 2 == 0)).as("environment 0 hands out even IDs").isTrue();
        assertThat(Arrays.stream(one).allMatch(id -> id % 2 == 1)).as("environment 1 hands out odd IDs").isTrue();
        long[] all = new long[zero.length + one.length];
        System.arraycopy(zero, 0, all, 0, zero.length);
        System.arraycopy(one, 0, all, zero.length, one.length);
        Arrays.sort(all);
        int repeats = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                repeats++;
            }
        }
        assertThat(repeats).as("IDs of two million takes handed out twice").isZero();
        // both ran over the same offsets: without the split they would have collided throughout
        assertThat(zero[0] / 2).isEqualTo(one[0] / 2);
    }

    @Test
    void environmentsZeroAndOneOfTwoWithTheirOwnRedisAndDatabaseNeverCollideOverAMillionTakes() throws Exception {
        Path dir = Files.createTempDirectory("idworker-pool-env-");
        int port = RedisClusterSupport.freePort();
        Process second = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        String key = "p-env-" + System.nanoTime();
        try (PoolRedisHarness e0 = new PoolRedisHarness("jdbc:h2:mem:pool-env0;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
             PoolRedisHarness e1 = new PoolRedisHarness("jdbc:h2:mem:pool-env1;MODE=PostgreSQL;DB_CLOSE_DELAY=-1", "sa",
                     "", () -> RedisClient.create("127.0.0.1", port))) {
            long[] zero = millionIds(e0, new PoolEnvironment(0, 2), key);
            long[] one = millionIds(e1, new PoolEnvironment(1, 2), key);
            assertDisjoint(zero, one);
        } finally {
            RedisClusterSupport.kill(second);
            RedisClusterSupport.deleteRecursively(dir);
        }
    }
}
