package io.github.idworker.test.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ID pools across restarts of a {@code redis-server} of the test's own: a restart that loses every key while two
 * nodes take, and a restart that restores an older snapshot (the list comes back holding IDs already handed out).
 * Every ID taken afterwards is above every ID taken before: gaps, never reuse.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisIdPoolsRestartTest {

    private PoolRedisHarness harness;
    private Path dir;
    private int port;
    private volatile Process server;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("idworker-pool-restart-");
        port = RedisClusterSupport.freePort();
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        harness = new PoolRedisHarness("jdbc:h2:mem:pool-restart;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisClient.create("127.0.0.1", port));
    }

    @AfterEach
    void stop() throws Exception {
        harness.close();
        RedisClusterSupport.kill(server);
        RedisClusterSupport.deleteRecursively(dir);
    }

    private void restart() throws Exception {
        RedisClusterSupport.kill(server);
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        harness.reconnectAdmin();
    }

    @Test
    void idsTakenAfterRedisRestartedEmptyAreAboveEveryIdTakenBefore() throws Exception {
        PoolEntity entity = harness.entity(b -> b.type(IncreasingType.MONOTONIC).maxPerRequest(20)
                .maxPerSecond(100_000).step(200).maxPoolSize(2000L).thresholdPercent(50)
                .checkInterval(Duration.ofMillis(100)));
        RedisIdPools a = harness.newNode();
        RedisIdPools b = harness.newNode();
        a.register(entity);
        b.register(entity);
        ConcurrentLinkedQueue<PoolTakes.Take> takes = new ConcurrentLinkedQueue<>();
        AtomicLong refused = new AtomicLong();
        long[] window = new long[2];
        Thread restarter = new Thread(() -> {
            try {
                while (takes.size() < 1_000) {
                    Thread.sleep(5);
                }
                window[0] = System.nanoTime();
                restart();
                window[1] = System.nanoTime();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "redis-restart");
        restarter.start();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int node = t % 2;
                RedisIdPools pools = node == 0 ? a : b;
                takers.add(pool.submit(() -> {
                    int done = 0;
                    while (done < 1_000) {
                        int n = 1 + ThreadLocalRandom.current().nextInt(20);
                        long begin = System.nanoTime();
                        try {
                            long[] ids = pools.take(entity.key(), n);
                            takes.add(new PoolTakes.Take(node, begin, System.nanoTime(), ids));
                            done++;
                        } catch (PoolEmptyException | CenterUnavailableException e) {
                            refused.incrementAndGet();
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            restarter.join();
        }
        assertThat(window[1]).as("the restart happened while the nodes took").isPositive();
        PoolTakes.assertUnique(takes);
        PoolTakes.assertOrdered(takes, id -> id, true);
        List<PoolTakes.Take> before = takes.stream().filter(t -> t.end() < window[0]).toList();
        List<PoolTakes.Take> after = takes.stream().filter(t -> t.begin() > window[1]).toList();
        assertThat(before).isNotEmpty();
        assertThat(after).isNotEmpty();
        long highestBefore = before.stream().mapToLong(PoolTakes.Take::max).max().orElseThrow();
        assertThat(after).allSatisfy(t -> assertThat(t.min()).isGreaterThan(highestBefore));
        System.out.printf("POOL-RESULT redis restart without data: %d takes (%d before, %d after), %d refused while "
                + "Redis was down or refilling, 0 IDs reissued%n", takes.size(), before.size(), after.size(),
                refused.get());
    }

    @Test
    void aRestartThatRestoresAnOlderSnapshotNeverHandsOutAnIdAgain() throws Exception {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100)
                .maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofHours(1)));
        RedisIdPools node = harness.newNode();
        node.register(entity);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (harness.level(entity.key()) < 1000 || harness.admin().exists("{" + PoolRedisHarness.PREFIX + ":pool:"
                + entity.key() + "}:lock")) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        harness.admin().sendCommand(Protocol.Command.SAVE); // the snapshot holds 1000 IDs
        long[] taken = node.take(entity.key(), 100);
        restart(); // loads dump.rdb: the list is back with the 100 IDs just taken at its head
        assertThat(harness.admin().lindex(PoolRedisHarness.listKey(entity.key()), 0))
                .as("the snapshot brought the taken IDs back").isEqualTo(Long.toString(taken[0]));
        RedisIdPools after = harness.newNode();
        long[] next = null;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (next == null) {
            try {
                next = after.take(entity.key(), 100);
            } catch (PoolEmptyException | PoolTimeoutException e) {
                assertThat(System.nanoTime()).isLessThan(until);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        assertThat(next[0]).as("above everything reserved before, not the restored head").isGreaterThan(1000);
    }
}
