package io.github.idworker.test.pool.redis;

import io.github.idworker.test.Pacing;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolTimeoutException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolRequestTooLargeException;
import io.github.idworker.pool.RateLimitedException;
import io.github.idworker.pool.UnknownPoolEntityException;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.test.StderrLog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ID pools over one Redis and one database, as independent nodes use them: two refillers and eight takers for a
 * minute (unique, strictly increasing in take order, never above max-pool-size, never empty at a steady rate
 * within the limits); {@code TREND} chunks are shuffled permutations of consecutive ranges and increase chunk by
 * chunk; the rate limit holds across nodes; an oversized take is refused whole with an alarm; a refiller that
 * stalled past its lock cannot append old IDs; one evicted key only makes a gap; operators' changes count within
 * one check interval. Subclasses pick the Redis and the database.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
abstract class AbstractRedisIdPoolsTest {

    protected PoolRedisHarness harness;

    /** The Redis and database under test. */
    protected abstract PoolRedisHarness createHarness();

    /**
     * How long the steady two-node run lasts: at 2 400 IDs/s against a pool of 8 000 refilled below half, about
     * one refill every 1.7 s, so 8 s go through several races of the two refillers.
     */
    protected Duration steadyRun() {
        return Duration.ofSeconds(8);
    }

    @BeforeEach
    void open() {
        harness = createHarness();
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private static void awaitLevel(RedisIdPools node, String entity, long atLeast) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (node.status(entity).level() < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("pool " + entity + " never reached " + atLeast + ": " + node.status(entity));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Test
    @Tag("exclusive")
    void twoRefillersAndEightTakersGetUniqueStrictlyIncreasingIdsNeverAboveMaxAndNeverEmpty() throws Exception {
        // a pool of two seconds' demand at the limit, so the run goes through many refills
        PoolEntity entity = harness.entity(b -> b.type(IncreasingType.MONOTONIC).maxPerSecond(4000).maxPerRequest(50)
                .maxPoolSize(8000L).thresholdPercent(50).step(1000).checkInterval(Duration.ofMillis(250)));
        ConcurrentLinkedQueue<PoolAlarm> heard = new ConcurrentLinkedQueue<>();
        RedisIdPools a = harness.newNode(PoolRedisHarness.options().alarmListener(heard::add).build());
        RedisIdPools b = harness.newNode(PoolRedisHarness.options().alarmListener(heard::add).build());
        a.register(entity);
        b.register(entity);
        awaitLevel(a, entity.key(), entity.thresholdLevel());
        heard.clear();

        ConcurrentLinkedQueue<PoolTakes.Take> takes = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicLong maxLevel = new AtomicLong();
        AtomicLong minLevel = new AtomicLong(Long.MAX_VALUE);
        AtomicBoolean running = new AtomicBoolean(true);
        long runNanos = steadyRun().toNanos();
        int perTakerPerSecond = 300; // 8 × 300 = 2400 IDs/s, 60 % of max-per-second
        ExecutorService pool = Executors.newFixedThreadPool(9);
        CyclicBarrier go = new CyclicBarrier(8);
        try {
            Future<?> monitor = pool.submit(() -> {
                while (running.get()) {
                    long level = harness.level(entity.key());
                    maxLevel.accumulateAndGet(level, Math::max);
                    minLevel.accumulateAndGet(level, Math::min);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                }
                return null;
            });
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int node = t % 2;
                RedisIdPools pools = node == 0 ? a : b;
                takers.add(pool.submit(() -> {
                    go.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    long start = System.nanoTime();
                    long due = start;
                    while (System.nanoTime() - start < runNanos) {
                        int n = 1 + random.nextInt(50);
                        long begin = System.nanoTime();
                        try {
                            long[] ids = pools.take(entity.key(), n);
                            takes.add(new PoolTakes.Take(node, begin, System.nanoTime(), ids));
                            assertThat(ids).hasSize(n);
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                        // steady pace: the next take is due n IDs' share of the rate after this one. A taker
                        // held up (a loaded machine, a GC pause) goes on from now and does not catch up: eight
                        // takers catching up at once passed max-per-second (CI saw 15 refusals after a stall)
                        due = Math.max(due, begin) + n * TimeUnit.SECONDS.toNanos(1) / perTakerPerSecond;
                        // until due, not one park: each early return was an unpaced take (runs took 19 896 IDs where
                        // 19 600 is the most)
                        Pacing.parkUntil(due);
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(runNanos / 1_000_000_000L + 60, TimeUnit.SECONDS);
            }
            running.set(false);
            monitor.get(10, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
        long ids = takes.stream().mapToLong(t -> t.ids().length).sum();
        System.out.printf("steady run %s: %d takes, %d IDs, level %d..%d of %d, refills %d + %d, appended %d, "
                        + "dropped %d, failures %d, alarms %d%n", entity.key(), takes.size(), ids, minLevel.get(),
                maxLevel.get(), entity.maxPoolSize(), a.refills(), b.refills(), a.appendedIds() + b.appendedIds(),
                a.droppedIds() + b.droppedIds(), failures.size(), heard.size());
        assertThat(failures).as("no take was refused at a steady rate within the limits").isEmpty();
        PoolTakes.assertUnique(takes);
        PoolTakes.assertAscendingWithinTakes(takes);
        PoolTakes.assertOrdered(takes, id -> id, true);
        assertThat(maxLevel.get()).as("the list never held more than max-pool-size").isLessThanOrEqualTo(entity.maxPoolSize());
        assertThat(minLevel.get()).as("the level never reached 0").isGreaterThan(0);
        assertThat(a.refills() + b.refills()).as("refills during the run").isGreaterThanOrEqualTo(
                ids / entity.maxPoolSize());
        assertThat(heard).as("no alarm at a steady rate").isEmpty();
    }

    @Test
    void trendChunksArePermutationsOfConsecutiveRangesAndIncreaseChunkByChunk() throws Exception {
        int step = 100;
        PoolEntity entity = harness.entity(b -> b.type(IncreasingType.TREND).step(step).maxPoolSize(2000L)
                .thresholdPercent(50).maxPerRequest(20).maxPerSecond(100_000).checkInterval(Duration.ofMillis(100)));
        RedisIdPools a = harness.newNode();
        RedisIdPools b = harness.newNode();
        a.register(entity);
        b.register(entity);
        awaitLevel(a, entity.key(), 2000);

        // the filled list: slices of one step, each a shuffled permutation of a consecutive range, each above the last
        List<String> listed = harness.admin().lrange(PoolRedisHarness.listKey(entity.key()), 0, -1);
        assertThat(listed).hasSize(2000);
        long previousMax = 0;
        int shuffled = 0;
        for (int c = 0; c < listed.size() / step; c++) {
            long[] chunk = listed.subList(c * step, (c + 1) * step).stream().mapToLong(Long::parseLong).toArray();
            long[] sorted = chunk.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < step; i++) {
                assertThat(sorted[i]).as("chunk %d is a permutation of a consecutive range", c).isEqualTo(sorted[0] + i);
            }
            assertThat(sorted[0]).as("chunk %d starts right above chunk %d", c, c - 1).isEqualTo(previousMax + 1);
            previousMax = sorted[step - 1];
            if (!Arrays.equals(chunk, sorted)) {
                shuffled++;
            }
        }
        assertThat(shuffled).as("chunks shuffled of " + listed.size() / step).isGreaterThan(listed.size() / step / 2);

        ConcurrentLinkedQueue<PoolTakes.Take> takes = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int node = t % 2;
                RedisIdPools pools = node == 0 ? a : b;
                takers.add(pool.submit(() -> {
                    long got = 0;
                    while (got < 6_000) {
                        int n = 1 + ThreadLocalRandom.current().nextInt(20);
                        long begin = System.nanoTime();
                        try {
                            long[] ids = pools.take(entity.key(), n);
                            takes.add(new PoolTakes.Take(node, begin, System.nanoTime(), ids));
                            got += n;
                        } catch (PoolEmptyException | PoolTimeoutException e) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        PoolTakes.assertUnique(takes);
        long start = entity.startOffset();
        PoolTakes.assertOrdered(takes, id -> (id - start) / step, false);
        // every chunk handed out whole holds exactly its consecutive range
        long[] all = PoolTakes.allSorted(takes);
        java.util.Map<Long, Long> perChunk = new java.util.TreeMap<>();
        for (long id : all) {
            perChunk.merge((id - start) / step, 1L, Long::sum);
        }
        assertThat(perChunk.values().stream().filter(n -> n == step).count()).isGreaterThan(200);
    }

    @Test
    @Tag("exclusive")
    void twoNodesTakingAsFastAsTheyCanReceiveAtMostMaxPerSecondTogether() throws Exception {
        int maxPerSecond = 1000;
        PoolEntity entity = harness.entity(b -> b.maxPerSecond(maxPerSecond).maxPerRequest(10).step(1000)
                .checkInterval(Duration.ofMillis(200)));
        RedisIdPools a = harness.newNode();
        RedisIdPools b = harness.newNode();
        a.register(entity);
        b.register(entity);
        awaitLevel(a, entity.key(), entity.thresholdLevel());

        AtomicLong received = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        ConcurrentLinkedQueue<Duration> waits = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> other = new ConcurrentLinkedQueue<>();
        long runNanos = TimeUnit.MILLISECONDS.toNanos(4_000);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        long began = System.nanoTime();
        try {
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                RedisIdPools pools = t % 2 == 0 ? a : b;
                takers.add(pool.submit(() -> {
                    while (System.nanoTime() - began < runNanos) {
                        try {
                            received.addAndGet(pools.take(entity.key(), 10).length);
                        } catch (RateLimitedException e) {
                            refused.incrementAndGet();
                            waits.add(e.getRetryAfter());
                            assertThat(e.getMaxPerSecond()).isEqualTo(maxPerSecond);
                        } catch (RuntimeException e) {
                            other.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        System.out.printf("rate limit: %d IDs in %.2f s (limit %d/s), %d takes refused%n", received.get(), seconds,
                maxPerSecond, refused.get());
        assertThat(other).isEmpty();
        // the run touches at most ceil(seconds) + 1 one-second windows of the Redis clock
        assertThat(received.get()).isLessThanOrEqualTo((long) maxPerSecond * ((long) Math.ceil(seconds) + 1));
        assertThat(received.get()).as("the limit lets the allowed rate through")
                .isGreaterThanOrEqualTo((long) maxPerSecond * ((long) Math.floor(seconds) - 1));
        assertThat(refused.get()).isGreaterThan(0);
        assertThat(waits).allSatisfy(w -> assertThat(w).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1)));
    }

    @Test
    void aTakeLargerThanTheLevelIsRefusedWholeWithAnAlarmAndRemovesNothing() {
        ConcurrentLinkedQueue<PoolAlarm> heard = new ConcurrentLinkedQueue<>();
        // one check an hour: the level stays where the takes leave it until a refused take asks for a refill
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(1000).maxPerSecond(100_000).maxPoolSize(1500L)
                .thresholdPercent(50).step(500).checkInterval(Duration.ofHours(1)));
        RedisIdPools node = harness.newNode(PoolRedisHarness.options().alarmListener(heard::add).build());
        node.register(entity);
        awaitLevel(node, entity.key(), 1500);
        long[] first = node.take(entity.key(), 1000);
        assertThat(first).hasSize(1000);
        List<String> before = harness.admin().lrange(PoolRedisHarness.listKey(entity.key()), 0, -1);
        assertThat(before).hasSize(500);

        String log = StderrLog.during(() -> assertThatThrownBy(() -> node.take(entity.key(), 501))
                .isInstanceOfSatisfying(PoolEmptyException.class, e -> {
                    assertThat(e.getEntity()).isEqualTo(entity.key());
                    assertThat(e.getLevel()).isEqualTo(500);
                    assertThat(e.getRequested()).isEqualTo(501);
                })
                .hasMessageContaining(entity.key()).hasMessageContaining("500").hasMessageContaining("501"));
        // the pool's first alarm is logged at once, though its check interval (the gap between lines) is an hour
        assertThat(log).contains("WARN").contains("ID pool '" + entity.key() + "' is empty: level 500")
                .contains("501 asked for");
        // nothing was removed: the head is where it was (a refill may have appended behind it meanwhile)
        List<String> after = harness.admin().lrange(PoolRedisHarness.listKey(entity.key()), 0, 499);
        assertThat(after).isEqualTo(before);
        assertThat(heard).anySatisfy(alarm -> {
            assertThat(alarm.kind()).isEqualTo(PoolAlarm.Kind.EMPTY);
            assertThat(alarm.entity()).isEqualTo(entity.key());
            assertThat(alarm.level()).isEqualTo(500);
            assertThat(alarm.requested()).isEqualTo(501);
        });
        // the refused take asked for a refill at once, though the next check is an hour away
        awaitLevel(node, entity.key(), entity.thresholdLevel());
        long[] next = node.take(entity.key(), 501);
        assertThat(next[0]).isEqualTo(Long.parseLong(before.get(0)));
    }

    @Test
    void aRefusedTakeWhileACheckIsRunningIsAnsweredByAnotherCheckAfterIt() throws Exception {
        // one check an hour: only refused takes ask for refills
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(1500).maxPerSecond(100_000).maxPoolSize(1500L)
                .thresholdPercent(50).step(500).checkInterval(Duration.ofHours(1)));
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RedisIdPools node = harness.newNode(PoolRedisHarness.options().build(), direct -> (script, keys, args) -> {
            List<Object> reply = direct.execute(script, keys, args);
            if (script.name().equals("pool-inspect") && Thread.currentThread().getName().startsWith("idworker-pool-")
                    && armed.compareAndSet(true, false)) {
                // the check has read the level and decides on it, whatever the takes do meanwhile
                stalled.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return reply;
        });
        node.register(entity);
        awaitLevel(node, entity.key(), 1500);
        assertThat(node.take(entity.key(), 500)).hasSize(500); // 1 000 left, above the threshold of 750
        armed.set(true);
        // a take larger than the pool is refused and asks for a check, which reads 1 000 and stalls
        assertThatThrownBy(() -> node.take(entity.key(), 1001)).isInstanceOf(PoolEmptyException.class);
        assertThat(stalled.await(10, TimeUnit.SECONDS)).as("a check read the level").isTrue();
        // while it stalls the pool falls below its threshold, and a refused take asks again
        assertThat(node.take(entity.key(), 500)).hasSize(500);
        assertThatThrownBy(() -> node.take(entity.key(), 501)).isInstanceOf(PoolEmptyException.class);
        release.countDown();
        // the stalled check saw 1 000 and refills nothing: the second request must not have been dropped
        awaitLevel(node, entity.key(), entity.thresholdLevel());
        assertThat(node.take(entity.key(), 501)).hasSize(501);
    }

    @Test
    void oversizedTakesAndUnknownEntitiesAreRefusedNamingTheLimit() {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(10).maxPerSecond(1000).step(100));
        RedisIdPools node = harness.newNode();
        node.register(entity);
        assertThatThrownBy(() -> node.take(entity.key(), 11))
                .isInstanceOfSatisfying(PoolRequestTooLargeException.class,
                        e -> assertThat(e.getMaxPerRequest()).isEqualTo(10))
                .hasMessageContaining("max-per-request 10").hasMessageContaining(entity.key());
        assertThatThrownBy(() -> node.take(entity.key(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count");
        assertThatThrownBy(() -> node.take("no-such-entity-" + entity.key(), 1))
                .isInstanceOf(UnknownPoolEntityException.class).hasMessageContaining("no-such-entity-");
    }

    @Test
    void operatorsChangesCountWithinOneCheckInterval() {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(100).maxPerSecond(10_000).step(100)
                .checkInterval(Duration.ofMillis(200)));
        RedisIdPools node = harness.newNode();
        node.register(entity);
        awaitLevel(node, entity.key(), entity.thresholdLevel());
        assertThat(node.take(entity.key(), 50)).hasSize(50);
        harness.setColumn(entity.key(), "max_per_request", 20);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200 * 3 + 500);
        boolean refused = false;
        while (System.nanoTime() < deadline && !refused) {
            try {
                node.take(entity.key(), 50);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            } catch (PoolRequestTooLargeException e) {
                refused = e.getMaxPerRequest() == 20;
            }
        }
        assertThat(refused).as("the lowered max-per-request counted within a check interval").isTrue();
    }

    @Test
    void aRefillerThatStalledPastItsLockCannotAppendItsOlderIds() throws Exception {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100)
                .maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofHours(1)));
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stallNext = new AtomicBoolean(false);
        // node A stalls right before an append, holding a reservation, until its lock has expired
        RedisIdPools a = harness.newNode(PoolRedisHarness.options().lockTtl(Duration.ofMillis(300)).build(),
                inner -> (RedisScriptExecutor) (script, keys, args) -> {
                    if (script.name().equals("pool-append") && args.size() > 1 && args.get(1).equals("APPEND")
                            && stallNext.compareAndSet(true, false)) {
                        stalled.countDown();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return inner.execute(script, keys, args);
                });
        RedisIdPools b = harness.newNode();
        b.register(entity);
        awaitLevel(b, entity.key(), 1000);
        List<Long> taken = new ArrayList<>();
        for (long id : b.take(entity.key(), 100)) {
            taken.add(id);
        }
        for (int i = 0; i < 5; i++) {
            for (long id : b.take(entity.key(), 100)) {
                taken.add(id);
            }
        }
        // level 400: both are below the threshold; A reserves first and stalls before appending
        stallNext.set(true);
        Thread refillA = new Thread(() -> a.checkNow(entity.key()));
        refillA.start();
        assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(400); // A's lock expires
        assertThat(b.checkNow(entity.key())).isTrue(); // B reserves above A and appends
        // make room for A's 600 IDs, so only the fence (not max-pool-size) can refuse them
        for (long id : b.take(entity.key(), 100)) {
            taken.add(id);
        }
        for (int i = 0; i < 5; i++) {
            for (long id : b.take(entity.key(), 100)) {
                taken.add(id);
            }
        }
        assertThat(harness.level(entity.key())).isEqualTo(400);
        release.countDown();
        refillA.join(30_000);
        // everything in the pool now comes out strictly increasing and unique
        long level = harness.level(entity.key());
        while (level > 0) {
            int n = (int) Math.min(100, level);
            for (long id : b.take(entity.key(), n)) {
                taken.add(id);
            }
            level = harness.level(entity.key());
        }
        for (int i = 1; i < taken.size(); i++) {
            assertThat(taken.get(i)).as("ID %d of %d", i, taken.size()).isGreaterThan(taken.get(i - 1));
        }
        assertThat(a.droppedIds()).as("A's stale IDs were refused").isEqualTo(600);
    }

    @Test
    void oneEvictedKeyOnlyMakesAGapAndLaterIdsStayAboveEarlierOnes() {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(100).maxPerSecond(100_000).step(100)
                .maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofMillis(100)));
        RedisIdPools node = harness.newNode();
        node.register(entity);
        awaitLevel(node, entity.key(), 1000);
        List<Long> taken = new ArrayList<>();
        for (String evicted : List.of("meta", "ids", "meta")) {
            for (long id : takeSoon(node, entity.key(), 100)) {
                taken.add(id);
            }
            String key = evicted.equals("meta") ? PoolRedisHarness.metaKey(entity.key())
                    : PoolRedisHarness.listKey(entity.key());
            harness.admin().del(key);
            for (long id : takeSoon(node, entity.key(), 100)) {
                taken.add(id);
            }
        }
        for (int i = 1; i < taken.size(); i++) {
            assertThat(taken.get(i)).as("ID %d of %d", i, taken.size()).isGreaterThan(taken.get(i - 1));
        }
    }

    /** Takes {@code n}, waiting out refills after a loss. */
    private static long[] takeSoon(RedisIdPools node, String entity, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return node.take(entity, n);
            } catch (PoolEmptyException | CenterUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }
}
