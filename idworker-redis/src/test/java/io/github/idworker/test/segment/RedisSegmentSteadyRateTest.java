package io.github.idworker.test.segment;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A steady load on a Redis sequence with small ranges never waits for a refill once warm: every range is installed
 * ahead, in the background, before the current one runs out. Runs alone ({@code exclusive}): it measures waits
 * against a clock, which a busy machine would distort.
 */
@Tag("exclusive")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSegmentSteadyRateTest {

    private static final int THREADS = 4;
    private static final int CALLS_PER_SECOND = 20_000;
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MEASURED_NANOS = TimeUnit.SECONDS.toNanos(4);

    @Test
    void twentyThousandCallsASecondOnRangesOfAThousandNeverWaitForARefillOnceWarm() throws Exception {
        JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore(
                "jdbc:h2:mem:segment-redis-steady;DB_CLOSE_DELAY=-1", "sa", "");
        String tag = "s-" + UUID.randomUUID().toString().substring(0, 13);
        store.newAllocator(false).register(tag, 0, 100);
        UnifiedJedis jedis = EmbeddedRedisSupport.newClient();
        // ranges of 1 000 at 20 000 numbers a second: a new range every 50 ms, the range ahead wanted 40 ms before
        RedisSegmentOptions options = RedisSegmentOptions.builder().keyPrefix(RedisSegmentIdGeneratorTest.PREFIX)
                .step(1_000).build();
        RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                store.newAllocator(false), tag, options);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            AtomicLong waitedWhenWarm = new AtomicLong(-1);
            AtomicLong aheadWhenWarm = new AtomicLong();
            AtomicLong measuredCalls = new AtomicLong();
            CyclicBarrier start = new CyclicBarrier(THREADS);
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) * THREADS / CALLS_PER_SECOND;
            List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int caller = t;
                callers.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    long begin = System.nanoTime();
                    long previous = 0;
                    // callers are spread over the interval, so together they call at a steady rate
                    long due = begin + intervalNanos * caller / THREADS;
                    while (true) {
                        long now = System.nanoTime();
                        if (now - begin >= WARM_UP_NANOS + MEASURED_NANOS) {
                            return null;
                        }
                        if (due - now > 0) {
                            LockSupport.parkNanos(due - now);
                        }
                        due += intervalNanos;
                        long id = g.nextId();
                        assertThat(id).isGreaterThan(previous);
                        previous = id;
                        if (System.nanoTime() - begin >= WARM_UP_NANOS) {
                            if (waitedWhenWarm.get() < 0 && waitedWhenWarm.compareAndSet(-1, g.waitedCalls())) {
                                aheadWhenWarm.set(g.installedAhead());
                            }
                            measuredCalls.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : callers) {
                f.get(60, TimeUnit.SECONDS);
            }
            double seconds = MEASURED_NANOS / 1e9;
            long waited = g.waitedCalls() - waitedWhenWarm.get();
            long ahead = g.installedAhead() - aheadWhenWarm.get();
            System.out.printf("redis segment steady rate: %.0f calls/s over %.0f s, %d script calls, %d coalesced, "
                            + "%d ranges installed ahead while measured, %d script calls waited for a refill while "
                            + "measured (%d in all); %d refills took %.2f ms on average%n", measuredCalls.get() / seconds,
                    seconds, g.scriptCalls(), g.coalescedCalls(), ahead, waited, g.waitedCalls(), g.status().refills(),
                    g.status().refillNanos() / 1e6 / Math.max(1, g.status().refills()));
            assertThat(measuredCalls.get() / seconds).as("the rate held").isGreaterThan(CALLS_PER_SECOND * 0.75);
            assertThat(ahead).as("ranges installed ahead while measured").isGreaterThanOrEqualTo(40);
            assertThat(waited).as("calls that waited for a refill once warm").isZero();
        } finally {
            pool.shutdownNow();
            jedis.close(); // first, so that no refill ahead still under way writes the keys again
            try (UnifiedJedis admin = EmbeddedRedisSupport.newClient()) {
                admin.del(g.rangeKey(), g.lockKey());
            }
            store.deleteTag(tag);
            store.close();
        }
    }
}
