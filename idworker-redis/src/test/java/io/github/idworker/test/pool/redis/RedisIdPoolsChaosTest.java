package io.github.idworker.test.pool.redis;

import org.junit.jupiter.api.Tag;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.RateLimitedException;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sixteen takers over four nodes while two threads force refill checks on random nodes, the nodes' own checks
 * run every 50 ms, appends stall at random past a 100 ms lock, and a chaos thread deletes one of the pool's keys
 * ({@code meta}, {@code ids}, {@code lock} or {@code rate}) every 20–80 ms: every ID is unique, the order
 * guarantee of the type holds in take order, the list never passes max-pool-size. (Adversarial review: verified
 * to hold.)
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisIdPoolsChaosTest {

    private PoolRedisHarness harness;

    @BeforeEach
    void open() {
        harness = new PoolRedisHarness("jdbc:h2:mem:pool-chaos;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }

    @AfterEach
    void close() {
        harness.close();
    }

    @ParameterizedTest
    @EnumSource(IncreasingType.class)
    void sixteenTakersThroughEvictionsStalledRefillersAndForcedChecks(IncreasingType type) throws Exception {
        int step = 100;
        PoolEntity entity = harness.entity(b -> b.type(type).maxPerRequest(50).maxPerSecond(1_000_000).step(step)
                .maxPoolSize(2000L).thresholdPercent(50).checkInterval(Duration.ofMillis(50)));
        List<RedisIdPools> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boolean stalls = i % 2 == 0;
            nodes.add(harness.newNode(PoolRedisHarness.options().lockTtl(Duration.ofMillis(100)).build(),
                    inner -> (RedisScriptExecutor) (script, keys, args) -> {
                        if (stalls && script.name().equals("pool-append") && ThreadLocalRandom.current().nextInt(4) == 0) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(150)));
                        }
                        return inner.execute(script, keys, args);
                    }));
        }
        nodes.forEach(n -> n.register(entity));
        ConcurrentLinkedQueue<PoolTakes.Take> takes = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong maxLevel = new AtomicLong();
        AtomicLong deletions = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        long runNanos = TimeUnit.SECONDS.toNanos(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int node = t % 4;
                workers.add(pool.submit(() -> {
                    long start = System.nanoTime();
                    while (System.nanoTime() - start < runNanos) {
                        int n = 1 + ThreadLocalRandom.current().nextInt(50);
                        long begin = System.nanoTime();
                        try {
                            long[] ids = nodes.get(node).take(entity.key(), n);
                            takes.add(new PoolTakes.Take(node, begin, System.nanoTime(), ids));
                            if (ids.length != n) {
                                failures.add(new AssertionError("short take " + ids.length + " of " + n));
                            }
                        } catch (PoolEmptyException | RateLimitedException | CenterUnavailableException e) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (int t = 0; t < 2; t++) {
                workers.add(pool.submit(() -> {
                    while (running.get()) {
                        try {
                            nodes.get(ThreadLocalRandom.current().nextInt(4)).checkNow(entity.key());
                        } catch (RuntimeException e) {
                            // a refill that lost its keys under it
                        }
                    }
                    return null;
                }));
            }
            workers.add(pool.submit(() -> {
                String[] suffixes = {"meta", "ids", "lock", "rate"};
                while (running.get()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20 + ThreadLocalRandom.current().nextInt(60)));
                    String suffix = suffixes[ThreadLocalRandom.current().nextInt(suffixes.length)];
                    harness.admin().del("{" + PoolRedisHarness.PREFIX + ":pool:" + entity.key() + "}:" + suffix);
                    deletions.incrementAndGet();
                }
                return null;
            }));
            workers.add(pool.submit(() -> {
                while (running.get()) {
                    maxLevel.accumulateAndGet(harness.level(entity.key()), Math::max);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                return null;
            }));
            for (int t = 0; t < 16; t++) {
                workers.get(t).get(60, TimeUnit.SECONDS);
            }
            running.set(false);
            for (Future<?> f : workers) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
        long ids = takes.stream().mapToLong(t -> t.ids().length).sum();
        System.out.printf("chaos %s: %d takes, %d IDs, %d deletions, max level %d, dropped %d%n", type, takes.size(),
                ids, deletions.get(), maxLevel.get(), nodes.stream().mapToLong(RedisIdPools::droppedIds).sum());
        assertThat(failures).isEmpty();
        assertThat(takes.size()).isGreaterThan(1000);
        PoolTakes.assertUnique(takes);
        if (type == IncreasingType.MONOTONIC) {
            PoolTakes.assertAscendingWithinTakes(takes);
            PoolTakes.assertOrdered(takes, id -> id, true);
        } else {
            long start = entity.startOffset();
            PoolTakes.assertOrdered(takes, id -> (id - start) / step, false);
        }
        assertThat(maxLevel.get()).isLessThanOrEqualTo(entity.maxPoolSize());
    }
}
