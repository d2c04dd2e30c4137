package io.github.idworker.test.pool.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.commands.ProtocolCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Holes found by an adversarial review of the ID pools, each on a {@code redis-server} of the test's own (debug
 * commands enabled) and H2: a snapshot loaded back into the running Redis, a node configured with another
 * environment split, a key prefix switched back after a deployment, and a gapped MONOTONIC pool at the very end of
 * the offsets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisIdPoolsReviewTest {

    private PoolRedisHarness harness;
    private Path dir;
    private int port;
    private Process server;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("idworker-pool-review-");
        port = RedisClusterSupport.freePort();
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir,
                List.of("--enable-debug-command", "yes"));
        harness = new PoolRedisHarness("jdbc:h2:mem:pool-review;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisClient.create("127.0.0.1", port));
    }

    @AfterEach
    void stop() throws Exception {
        try {
            harness.close();
        } finally {
            RedisClusterSupport.kill(server);
            RedisClusterSupport.deleteRecursively(dir);
        }
    }

    /** A pool refilled only by explicit checks: 1000 IDs, refilled below 500, chunks of 100. */
    private PoolEntity manualEntity() {
        return harness.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100).maxPoolSize(1000L)
                .thresholdPercent(50).checkInterval(Duration.ofHours(1)));
    }

    /** Waits until the pool is full and no refill holds the lock. */
    private void awaitFullAndIdle(PoolEntity entity) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (harness.level(entity.key()) < entity.maxPoolSize() || harness.admin().exists("{"
                + PoolRedisHarness.PREFIX + ":pool:" + entity.key() + "}:lock")) {
            assertThat(System.nanoTime()).as("pool filled in time").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static long[] takeSoon(RedisIdPools node, String entity, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return node.take(entity, n);
            } catch (PoolEmptyException | PoolTimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    /**
     * A snapshot loaded into the running Redis ({@code DEBUG RELOAD}, or a backup tool's {@code RESTORE}) keeps
     * Redis's identity, so takes cannot tell. When a refill ran after the snapshot was taken, the restored
     * high-water is below the database's offset, and the next check drops the list before it hands out an ID
     * again. (A snapshot younger than the last refill cannot be told from the present by Redis or the database: the
     * docs/id-pools.md lists it; restart Redis after a restore.)
     */
    @Test
    void aSnapshotOlderThanTheLastRefillLoadedIntoTheRunningRedisIsDroppedAtTheNextCheck() {
        PoolEntity entity = manualEntity();
        RedisIdPools node = harness.newNode();
        node.register(entity);
        awaitFullAndIdle(entity);
        harness.admin().sendCommand(Protocol.Command.SAVE); // the snapshot holds the first 1000 IDs
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            Arrays.stream(node.take(entity.key(), 100)).forEach(seen::add);
        }
        assertThat(node.checkNow(entity.key())).isTrue(); // a refill after the snapshot advances the database
        long reserved = harness.currentOffset(entity.key());
        harness.admin().sendCommand((ProtocolCommand) () -> "DEBUG".getBytes(), "RELOAD", "NOSAVE"); // the older snapshot is back
        assertThat(harness.level(entity.key())).as("the snapshot brought the taken IDs back").isEqualTo(1000);
        node.checkNow(entity.key()); // what every node does every check-interval
        long[] after = takeSoon(node, entity.key(), 100);
        List<Long> twice = Arrays.stream(after).filter(seen::contains).boxed().toList();
        assertThat(twice).as("IDs handed out again after the snapshot came back").isEmpty();
        assertThat(after[0]).as("above the database's offset at the load").isGreaterThan(reserved);
    }

    /**
     * A node whose environment split differs from the one the row is pinned to (a changed configuration, a node
     * of a rolling deployment) is refused by the store's register and reserve, but still takes from the shared
     * pool: environment 0 of 3 hands out IDs that are not 0 mod 3.
     */
    @Test
    void aNodeOfAnotherEnvironmentSplitIsRefusedOnTakeToo() {
        PoolEntity entity = manualEntity();
        RedisIdPools right = harness.newNode(PoolRedisHarness.options().environment(new PoolEnvironment(0, 2)).build());
        right.register(entity);
        awaitFullAndIdle(entity);
        RedisIdPools wrong = harness.newNode(PoolRedisHarness.options().environment(new PoolEnvironment(0, 3)).build());
        assertThatThrownBy(() -> wrong.register(entity)).isInstanceOf(IdWorkerConfigurationException.class);
        long[] ids;
        try {
            ids = wrong.take(entity.key(), 10);
        } catch (IdWorkerConfigurationException refused) {
            return; // refused: the guarantee holds
        }
        assertThat(Arrays.stream(ids).filter(id -> id % 3 != 0).boxed().toList())
                .as("environment 0/3 handed out IDs not = 0 mod 3: %s", Arrays.toString(ids)).isEmpty();
    }

    /**
     * After Redis lost the pool, a node configured with another environment split seeds the high-water with its
     * own split (id = offset × 1024) before the store refuses its reservation; the correctly configured nodes then
     * find every refill STALE and burn offsets for hundreds of checks: the pool is empty, and a large part of the
     * ID space is lost.
     */
    @Test
    void aNodeOfAnotherEnvironmentSplitCannotSeedTheHighWater() {
        PoolEntity entity = manualEntity();
        RedisIdPools right = harness.newNode(PoolRedisHarness.options().environment(new PoolEnvironment(0, 2)).build());
        right.register(entity);
        awaitFullAndIdle(entity);
        for (int i = 0; i < 5; i++) {
            right.take(entity.key(), 100);
        }
        harness.admin().del(PoolRedisHarness.metaKey(entity.key())); // Redis lost the pool
        RedisIdPools wrong = harness.newNode(PoolRedisHarness.options()
                .environment(new PoolEnvironment(0, 1024)).build());
        wrong.checkNow(entity.key()); // the store refuses its reservation (its check's result depends on the order)
        long offset = harness.currentOffset(entity.key());
        // a check finds the refill lock taken while the other node's own checks (its first, and one asked for
        // while checkNow ran) try and fail: such a check answers false, and the next one refills
        boolean refilled = false;
        int checks = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!refilled && System.nanoTime() < until) {
            refilled = right.checkNow(entity.key());
            checks++;
            if (!refilled) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        System.out.printf("after the other split's check: %d check(s), current_offset %d, hw %s, level %d, "
                + "dropped %d%n", checks, harness.currentOffset(entity.key()),
                harness.admin().hget(PoolRedisHarness.metaKey(entity.key()), "hw"), harness.level(entity.key()),
                right.droppedIds());
        assertThat(refilled).as("the right environment refills within 5 s (current_offset was %d)", offset)
                .isTrue();
    }

    /**
     * Two deployments, environments 0 and 1 of 2, each with its own database but (by mistake) one Redis and the
     * same key prefix: each store pins its own row, so nothing refuses the second deployment, which appends its
     * odd IDs to the first one's list and takes its even IDs. Environment 0 must hand out only even IDs.
     */
    @Test
    void twoDeploymentsSharingOneRedisAndKeyPrefixNeverMixTheirSplits() {
        PoolEntity entity = manualEntity();
        try (PoolRedisHarness other = new PoolRedisHarness("jdbc:h2:mem:pool-review-other;MODE=MySQL;DB_CLOSE_DELAY=-1",
                "sa", "", () -> RedisClient.create("127.0.0.1", port))) {
            RedisIdPools zero = harness.newNode(PoolRedisHarness.options().environment(new PoolEnvironment(0, 2)).build());
            zero.register(entity);
            awaitFullAndIdle(entity);
            // the other deployment's database is further on, so its IDs pass the shared high-water
            PoolEntity ahead = other.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100).maxPoolSize(1000L)
                    .thresholdPercent(50).checkInterval(Duration.ofHours(1)).startOffset(10_000), entity.key());
            RedisIdPools one = other.newNode(PoolRedisHarness.options().environment(new PoolEnvironment(1, 2)).build());
            one.register(ahead);
            List<Long> takenByOne = new ArrayList<>();
            try {
                Arrays.stream(one.take(entity.key(), 10)).forEach(takenByOne::add);
            } catch (IdWorkerConfigurationException refused) {
                // refused: the guarantee holds
            }
            for (int i = 0; i < 6; i++) {
                zero.take(entity.key(), 100);
            }
            try {
                one.checkNow(entity.key());
            } catch (IdWorkerConfigurationException refused) {
                // refused
            }
            List<Long> takenByZero = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                try {
                    Arrays.stream(zero.take(entity.key(), 100)).forEach(takenByZero::add);
                } catch (PoolEmptyException empty) {
                    break;
                }
            }
            assertThat(takenByZero.stream().filter(id -> id % 2 != 0).limit(5).toList())
                    .as("environment 0/2 handed out IDs not = 0 mod 2").isEmpty();
            assertThat(takenByOne.stream().filter(id -> id % 2 != 1).toList())
                    .as("environment 1/2 handed out IDs not = 1 mod 2").isEmpty();
        }
    }

    /**
     * A deployment changes the key prefix, the nodes hand out IDs from the new pool (reserved above the old one),
     * then it is rolled back: the old list, untouched and still stamped by the same Redis, hands out IDs below
     * the ones just taken. MONOTONIC no longer increases in take order, without any loss in Redis.
     */
    @Test
    void switchingTheKeyPrefixBackNeverHandsOutIdsBelowOnesTaken() {
        PoolEntity entity = manualEntity();
        RedisIdPools v1 = harness.newNode();
        v1.register(entity);
        awaitFullAndIdle(entity);
        List<long[]> takes = new ArrayList<>();
        takes.add(v1.take(entity.key(), 100));
        RedisIdPools v2 = harness.newNode(PoolRedisHarness.options().keyPrefix(PoolRedisHarness.PREFIX + "-v2").build());
        v2.register(entity);
        takes.add(takeSoon(v2, entity.key(), 100));
        RedisIdPools rolledBack = harness.newNode();
        takes.add(takeSoon(rolledBack, entity.key(), 100));
        for (int i = 1; i < takes.size(); i++) {
            long prevMax = Arrays.stream(takes.get(i - 1)).max().orElseThrow();
            long min = Arrays.stream(takes.get(i)).min().orElseThrow();
            assertThat(min).as("take %d starts above take %d's last ID (%s after %s)", i, i - 1,
                    Arrays.toString(Arrays.copyOf(takes.get(i), 3)), Arrays.toString(Arrays.copyOf(takes.get(i - 1), 3)))
                    .isGreaterThan(prevMax);
        }
    }

    /**
     * An operator lowers max-pool-size below the level: the list keeps holding more than max-pool-size until takes
     * drain it (appends refuse to pass it, but nothing trims). Low severity: a documentation point unless the
     * guarantee is meant literally.
     */
    @Test
    void theListNeverHoldsMoreThanALoweredMaxPoolSizeOnceACheckRan() {
        PoolEntity entity = manualEntity();
        RedisIdPools node = harness.newNode();
        node.register(entity);
        awaitFullAndIdle(entity);
        harness.setColumn(entity.key(), "max_pool_size", 400);
        node.checkNow(entity.key());
        assertThat(harness.level(entity.key())).as("level after a check with max-pool-size 400")
                .isLessThanOrEqualTo(400);
    }

    /**
     * A MONOTONIC pool with max-gap whose reservation ends at the very last offset ({@code Long.MAX_VALUE} in a
     * single environment): the gap walk overflows, the refill fails with an ArrayIndexOutOfBoundsException, and the
     * last reservation is lost; the pool goes from empty straight to exhausted.
     */
    @Test
    void aGappedMonotonicPoolHandsOutItsLastOffsets() {
        PoolEntity entity = harness.entity(b -> b.type(IncreasingType.MONOTONIC).maxGap(2)
                .startOffset(Long.MAX_VALUE - 999).maxPerRequest(10).maxPerSecond(100_000).step(100)
                .maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofHours(1)));
        List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
        RedisIdPools node = harness.newNode(PoolRedisHarness.options().alarmListener(a -> reasons.add(a.reason()))
                .build());
        node.register(entity);
        node.checkNow(entity.key());
        long[] ids;
        try {
            ids = takeSoon(node, entity.key(), 10);
        } catch (PoolEmptyException | PoolTimeoutException e) {
            throw new AssertionError("no ID of the last reservation was handed out; alarms: " + reasons, e);
        }
        assertThat(ids).hasSize(10);
        assertThat(Arrays.stream(ids).min().orElseThrow()).isGreaterThanOrEqualTo(Long.MAX_VALUE - 999);
    }
}
