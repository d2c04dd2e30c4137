package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.test.Pacing;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.spring.annotation.EnableIdPools;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
import static org.assertj.core.api.Assertions.fail;

/**
 * Two application contexts as two nodes of one service, over one database and one Redis, sharing one
 * {@code MONOTONIC} entity whose pool holds two seconds of demand at its limit, so the run goes through many
 * refills by both nodes: eight takers (four per node) take 1 to 50 IDs at a steady 300 IDs/s each, 60 % of
 * {@code max-per-second}, for {@link #run()} (a taker that falls behind goes on at its pace rather than bursting). Every ID is handed out once; whenever one take returned before
 * another began, all its IDs are smaller; a monitor reading the list's length every few milliseconds never sees
 * it above {@code max-pool-size} nor empty after the first fill; no take is refused and no alarm raised. Node a
 * talks to Redis through Lettuce, node b through Jedis. Subclasses pick the database and the Redis.
 */
@Tag("exclusive")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class AbstractIdPoolsTwoNodesTest {

    private static final int TAKERS = 8;
    private static final int IDS_PER_TAKER_PER_SECOND = 300;
    private static final int MAX_PER_REQUEST = 50;
    private static final long MAX_POOL_SIZE = 8000;
    /** How far a taker may fall behind its pace before it stops trying to catch up. */
    private static final long MAX_LAG_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final PoolLeftovers leftovers = new PoolLeftovers();

    /** {@code spring.datasource.*} (and {@code idworker.pool.initialize-schema} if needed) of the shared database. */
    protected abstract String[] databaseProperties();

    /** JDBC URL, user and password of the shared database, to remove the test's rows afterwards. */
    protected abstract String[] databaseLogin();

    protected abstract String redisHost();

    protected abstract int redisPort();

    /** Where the run took place, for the summary line. */
    protected abstract String describe();

    /**
     * How long the takers take: 10 s against the real services (about 6 refills shared by both nodes, each one a
     * race of the two nodes for the lock); the embedded run is shorter and goes through the same refills, only
     * fewer of them.
     */
    protected Duration run() {
        return Duration.ofSeconds(10);
    }

    @AfterEach
    void removeLeftovers() {
        String[] login = databaseLogin();
        leftovers.remove(login[0], login[1], login[2], JdbcPoolStore.DEFAULT_TABLE, redisHost(), redisPort(),
                "idworker");
    }

    /** Hears every alarm of its node. */
    static class AlarmsHeard implements ApplicationListener<PoolAlarmEvent> {

        final Queue<PoolAlarmEvent> heard = new ConcurrentLinkedQueue<>();

        @Override
        public void onApplicationEvent(PoolAlarmEvent event) {
            heard.add(event);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class NodeApp {

        @Bean
        AlarmsHeard alarmsHeard() {
            return new AlarmsHeard();
        }
    }

    private ApplicationContextRunner node(String clientType, String entity) {
        String p = "idworker.pool.entities." + entity + ".";
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataRedisAutoConfiguration.class))
                .withUserConfiguration(NodeApp.class)
                .withPropertyValues(databaseProperties())
                .withPropertyValues("spring.data.redis.host=" + redisHost(), "spring.data.redis.port=" + redisPort(),
                        "spring.data.redis.client-type=" + clientType)
                .withPropertyValues(p + "type=monotonic", p + "max-per-second=4000",
                        p + "max-per-request=" + MAX_PER_REQUEST, p + "max-pool-size=" + MAX_POOL_SIZE,
                        p + "threshold-percent=50", p + "step=1000", p + "check-interval=250ms");
    }

    /** One successful take: its node, when it began and returned (nanoTime), what it got. */
    record Take(int node, long begin, long end, long[] ids) {
    }

    @Test
    void twoNodesAndEightTakersGetUniqueStrictlyIncreasingIdsNeverAboveMaxPoolSizeAndNeverEmpty() {
        String entity = leftovers.entity();
        node("lettuce", entity).run(first -> node("jedis", entity).run(second -> {
            assertThat(first).hasNotFailed();
            assertThat(second).hasNotFailed();
            RedisIdPools a = first.getBean(RedisIdPools.class);
            RedisIdPools b = second.getBean(RedisIdPools.class);
            PoolEntity settings = a.entities().stream().filter(e -> e.key().equals(entity)).findFirst().orElseThrow();
            assertThat(settings.maxPoolSize()).isEqualTo(MAX_POOL_SIZE);
            IdPoolsConfigTest.awaitLevel(a, entity, settings.thresholdLevel());
            Result result = run(a, b, entity);

            long ids = result.takes.stream().mapToLong(t -> t.ids().length).sum();
            int alarms = first.getBean(AlarmsHeard.class).heard.size() + second.getBean(AlarmsHeard.class).heard.size();
            System.out.printf("ID pools, two nodes over %s, %d s: %d takes, %d IDs, level %d..%d of %d, refills "
                            + "%d (node a) + %d (node b), appended %d, dropped %d, failures %d, alarms %d, takers "
                            + "behind their pace %d times%n",
                    describe(), run().toSeconds(), result.takes.size(), ids, result.minLevel, result.maxLevel,
                    MAX_POOL_SIZE, a.refills(), b.refills(), a.appendedIds() + b.appendedIds(),
                    a.droppedIds() + b.droppedIds(), result.failures.size(), alarms, result.lagged);

            assertThat(result.failures).as("takes refused at a steady rate within the limits").isEmpty();
            assertThat(ids).as("IDs taken").isGreaterThan(run().toSeconds() * TAKERS * IDS_PER_TAKER_PER_SECOND / 2);
            assertUnique(result.takes);
            assertAscendingWithinTakes(result.takes);
            assertOrderedAcrossTakes(result.takes);
            assertThat(result.maxLevel).as("the list never held more than max-pool-size").isLessThanOrEqualTo(MAX_POOL_SIZE);
            assertThat(result.minLevel).as("the list was never empty after the first fill").isGreaterThan(0);
            assertThat(a.refills()).as("refills by node a").isPositive();
            assertThat(b.refills()).as("refills by node b").isPositive();
            assertThat(alarms).as("alarms at a steady rate within the limits").isZero();
        }));
    }

    /** @param lagged how often a taker fell more than {@link #MAX_LAG_NANOS} behind its pace */
    private record Result(Collection<Take> takes, Collection<Throwable> failures, long minLevel, long maxLevel,
                          long lagged) {
    }

    private Result run(RedisIdPools a, RedisIdPools b, String entity) throws Exception {
        Queue<Take> takes = new ConcurrentLinkedQueue<>();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicLong minLevel = new AtomicLong(Long.MAX_VALUE);
        AtomicLong maxLevel = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong lagged = new AtomicLong();
        long runNanos = run().toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(TAKERS + 1);
        CyclicBarrier go = new CyclicBarrier(TAKERS);
        try {
            Future<?> monitor = threads.submit(() -> {
                try (Jedis jedis = new Jedis(redisHost(), redisPort())) {
                    String list = PoolLeftovers.listKey("idworker", entity);
                    while (running.get()) {
                        long level = jedis.llen(list);
                        minLevel.accumulateAndGet(level, Math::min);
                        maxLevel.accumulateAndGet(level, Math::max);
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    }
                }
                return null;
            });
            List<Future<?>> takers = new ArrayList<>();
            for (int t = 0; t < TAKERS; t++) {
                int node = t % 2;
                RedisIdPools pools = node == 0 ? a : b;
                takers.add(threads.submit(() -> {
                    go.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    long start = System.nanoTime();
                    long next = start;
                    // each node checks the level at its own fixed interval and whichever check comes first after
                    // the level crossed the threshold refills: with close phases one node may win several refills
                    // in a row, so the run goes on (at most 4 times as long) until both have refilled
                    while (System.nanoTime() - start < runNanos || (a.refills() == 0 || b.refills() == 0)
                            && System.nanoTime() - start < 4 * runNanos) {
                        int n = 1 + random.nextInt(MAX_PER_REQUEST);
                        long begin = System.nanoTime();
                        try {
                            long[] ids = pools.take(entity, n);
                            takes.add(new Take(node, begin, System.nanoTime(), ids));
                            if (ids.length != n) {
                                failures.add(new AssertionError(n + " IDs asked for, " + ids.length + " returned"));
                            }
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                        // steady pace: sleep until this taker is back on its share of the rate. A taker that
                        // fell behind (a pause of this JVM, of the machine or of Redis) goes on from now instead of
                        // catching up: eight takers making up a pause at once would pass max-per-second
                        next += n * TimeUnit.SECONDS.toNanos(1) / IDS_PER_TAKER_PER_SECOND;
                        long now = System.nanoTime();
                        if (now - next > MAX_LAG_NANOS) {
                            next = now;
                            lagged.incrementAndGet();
                        } else {
                            Pacing.parkUntil(next);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get(4 * run().toSeconds() + 60, TimeUnit.SECONDS);
            }
            running.set(false);
            monitor.get(10, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            threads.shutdownNow();
        }
        return new Result(takes, failures, minLevel.get(), maxLevel.get(), lagged.get());
    }

    /** No ID appears twice. */
    static void assertUnique(Collection<Take> takes) {
        long[] all = takes.stream().flatMapToLong(t -> Arrays.stream(t.ids())).sorted().toArray();
        int repeats = 0;
        long example = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                repeats++;
                example = all[i];
            }
        }
        assertThat(repeats).as("IDs handed out twice of %d (e.g. %d)", all.length, example).isZero();
    }

    /** Within each take, IDs strictly increase. */
    static void assertAscendingWithinTakes(Collection<Take> takes) {
        for (Take t : takes) {
            for (int i = 1; i < t.ids().length; i++) {
                if (t.ids()[i] <= t.ids()[i - 1]) {
                    fail("a take returned IDs out of order: " + Arrays.toString(t.ids()));
                }
            }
        }
    }

    /**
     * Whenever take A returned before take B began, every ID of A is below every ID of B. Sort and sweep: takes
     * by begin, and beside them takes by end; before checking B, every take that ended before B began has been
     * folded into the largest ID seen so far, which B's smallest ID must exceed.
     */
    static void assertOrderedAcrossTakes(Collection<Take> takes) {
        List<Take> byBegin = new ArrayList<>(takes);
        byBegin.sort(Comparator.comparingLong(Take::begin));
        List<Take> byEnd = new ArrayList<>(takes);
        byEnd.sort(Comparator.comparingLong(Take::end));
        long largestBefore = Long.MIN_VALUE;
        Take holder = null;
        int j = 0;
        int violations = 0;
        String example = null;
        for (Take later : byBegin) {
            while (j < byEnd.size() && byEnd.get(j).end() < later.begin()) {
                Take earlier = byEnd.get(j++);
                long max = Arrays.stream(earlier.ids()).max().orElseThrow();
                if (max > largestBefore) {
                    largestBefore = max;
                    holder = earlier;
                }
            }
            long min = Arrays.stream(later.ids()).min().orElseThrow();
            if (holder != null && min <= largestBefore) {
                violations++;
                if (example == null) {
                    example = "a take on node " + holder.node() + " returning " + Arrays.toString(holder.ids())
                            + " ended before one on node " + later.node() + " returning "
                            + Arrays.toString(later.ids()) + " began";
                }
            }
        }
        if (violations > 0) {
            fail(violations + " of " + takes.size() + " takes got IDs below those of a take that had returned "
                    + "before they began, e.g. " + example);
        }
    }
}
