package io.github.idworker.test.segment;

import io.github.idworker.test.Pacing;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A steady load on a Redis sequence with small ranges changes ranges inside the script once warm: the next range is
 * installed ahead, in the background, before the current one runs out, so a range change waits for a refill only
 * when a refill ahead was stalled longer than the range lasted. Runs alone ({@code exclusive}): it measures waits
 * against a clock, which a busy machine would distort.
 *
 * <p>What is measured is counted in range changes, not seconds: the measurement lasts until {@link #RANGE_CHANGES}
 * ranges were installed (3 s at the paced rate), at most {@link #MEASURED_AT_MOST_NANOS}. A 2-core machine under a
 * full build held 6 000 to 20 000 of the 20 000 calls a second the callers ask for; a window of 4 s and a rate of
 * 15 000 asserted on it failed there on the machine's pace, not on the sequence's.
 */
@Tag("exclusive")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSegmentSteadyRateTest {

    private static final int THREADS = 4;
    private static final int CALLS_PER_SECOND = 20_000;
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Range changes measured: each is one chance for a caller to wait. */
    private static final int RANGE_CHANGES = 60;
    /**
     * The longest the measurement may take: 60 ranges of 1 000 within 30 s is 2 000 calls a second at least, a tenth
     * of the paced rate and a third of the slowest pace seen on a loaded machine.
     */
    private static final long MEASURED_AT_MOST_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void twentyThousandCallsASecondOnRangesOfAThousandChangeToRangesInstalledAheadOnceWarm() throws Exception {
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
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicLong measuredCalls = new AtomicLong();
            CyclicBarrier start = new CyclicBarrier(THREADS + 1);
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) * THREADS / CALLS_PER_SECOND;
            List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int caller = t;
                callers.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    long previous = 0;
                    // callers are spread over the interval, so together they call at a steady rate
                    long due = System.nanoTime() + intervalNanos * caller / THREADS;
                    while (!stop.get()) {
                        Pacing.parkUntil(due);
                        due += intervalNanos;
                        long id = g.nextId();
                        assertThat(id).isGreaterThan(previous);
                        previous = id;
                        if (measuring.get()) {
                            measuredCalls.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.await(10, TimeUnit.SECONDS);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(WARM_UP_NANOS));
            long waitedWhenWarm = g.waitedCalls();
            long aheadWhenWarm = g.installedAhead();
            long installedWhenWarm = g.installedRanges();
            long measuredFrom = System.nanoTime();
            measuring.set(true);
            while (g.installedRanges() - installedWhenWarm < RANGE_CHANGES
                    && System.nanoTime() - measuredFrom < MEASURED_AT_MOST_NANOS) {
                Thread.sleep(5);
            }
            measuring.set(false);
            double seconds = (System.nanoTime() - measuredFrom) / 1e9;
            long waited = g.waitedCalls() - waitedWhenWarm;
            long ahead = g.installedAhead() - aheadWhenWarm;
            long changes = g.installedRanges() - installedWhenWarm;
            stop.set(true);
            for (Future<?> f : callers) {
                f.get(60, TimeUnit.SECONDS);
            }
            System.out.printf("redis segment steady rate: %.0f calls/s over %.1f s, %d script calls, %d coalesced, "
                            + "%d ranges installed while measured (%d ahead of the current one), %d script calls "
                            + "waited for a refill while measured (%d in all); %d refills took %.2f ms on average%n",
                    measuredCalls.get() / seconds, seconds, g.scriptCalls(), g.coalescedCalls(), changes, ahead,
                    waited, g.waitedCalls(), g.status().refills(),
                    g.status().refillNanos() / 1e6 / Math.max(1, g.status().refills()));
            assertThat(changes).as("ranges installed within %.1f s", seconds).isGreaterThanOrEqualTo(RANGE_CHANGES);
            // Without refills ahead, or with ranges ahead the script does not switch to, every range change waits
            // for a synchronous refill: no range lands ahead of the current one, and each change makes at least one
            // script call wait (0 of 60 ranges ahead and 118 waiting calls with refills ahead switched off). A
            // loaded machine stalls some refills ahead past their 40 ms lead, and callers wait for them: 2 waiting
            // calls in 56 range changes at load 54 on 2 cores failed the old "none", and up to 28 in about 75 were
            // seen at load 10 to 30, with 57 or more of 60 ranges still landing ahead. So: at least half of the
            // ranges landed ahead, and at most one waiting call per two range changes. When the refill ahead is asked
            // for is checked exactly, without a clock, by RedisSegmentIdGeneratorTest.
            assertThat(ahead).as("ranges installed ahead of the current one, of %d", changes)
                    .isGreaterThanOrEqualTo(changes / 2);
            assertThat(waited).as("calls that waited for a refill once warm, against %d range changes", changes)
                    .isLessThanOrEqualTo(changes / 2);
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
