package io.github.idworker.test.segment;

import io.github.idworker.test.Pacing;
import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.UnknownSegmentTagException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The in-process segment generator over a real table: uniqueness and per-thread order across two instances,
 * restart above everything issued, no waits for a steady caller, step adaptation, bounded waits.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SegmentIdGeneratorTest {

    private final List<String> tags = new ArrayList<>();
    private final List<SegmentIdGenerator> generators = new ArrayList<>();
    protected JdbcSegmentAllocatorStore store;

    /** The table the generators draw from; the real-services subclass points it at a server. */
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-generator;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1",
                "sa", "");
    }

    /** Numbers per thread in the 8-thread test. */
    protected int numbersPerThread() {
        return 1_000_000;
    }

    @BeforeEach
    void openStore() {
        store = createStore();
    }

    @AfterEach
    void cleanUp() {
        generators.forEach(SegmentIdGenerator::close);
        tags.forEach(store::deleteTag);
        store.close();
    }

    private String newTag() {
        String tag = "g-" + UUID.randomUUID().toString().substring(0, 13);
        tags.add(tag);
        return tag;
    }

    private SegmentIdGenerator generator(String tag, SegmentGeneratorOptions options) {
        SegmentIdGenerator g = new SegmentIdGenerator(store.newAllocator(false), tag, options);
        generators.add(g);
        return g;
    }

    @Test
    void eightThreadsOverTwoInstancesGetUniqueIncreasingNumbersAndARestartStartsAboveThemAll() throws Exception {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 1_000);
        SegmentGeneratorOptions options = SegmentGeneratorOptions.builder()
                .minStep(1_000).maxStep(50_000).maxWait(Duration.ofSeconds(20)).build();
        SegmentIdGenerator[] pair = {generator(tag, options), generator(tag, options)};
        int threads = 8;
        int perThread = numbersPerThread();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<long[]>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                SegmentIdGenerator g = pair[t % 2];
                boolean batches = t % 4 >= 2; // two threads per instance take batches, two take single numbers
                results.add(pool.submit(() -> {
                    long[] ids = new long[perThread];
                    start.await(30, TimeUnit.SECONDS);
                    int n = 0;
                    if (batches) {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        while (n < perThread) {
                            long[] batch = g.nextIds(Math.min(perThread - n, 1 + random.nextInt(500)));
                            System.arraycopy(batch, 0, ids, n, batch.length);
                            n += batch.length;
                        }
                    } else {
                        while (n < perThread) {
                            ids[n++] = g.nextId();
                        }
                    }
                    return ids;
                }));
            }
            long[] all = new long[threads * perThread];
            int offset = 0;
            for (Future<long[]> f : results) {
                long[] ids = f.get(150, TimeUnit.SECONDS);
                for (int i = 1; i < ids.length; i++) {
                    if (ids[i] <= ids[i - 1]) {
                        throw new AssertionError("not strictly increasing within one thread at " + i + ": "
                                + ids[i - 1] + " then " + ids[i]);
                    }
                }
                System.arraycopy(ids, 0, all, offset, ids.length);
                offset += ids.length;
            }
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                if (all[i] == all[i - 1]) {
                    throw new AssertionError("number " + all[i] + " issued twice");
                }
            }
            long highest = all[all.length - 1];
            assertThat(all[0]).isPositive();
            assertThat(store.storedMaxId(tag)).isGreaterThanOrEqualTo(highest);
            assertThat(pair[0].loadedSegments() + pair[1].loadedSegments()).isGreaterThan(2);
            System.out.printf("segment: %d numbers from 2 instances, %d + %d ranges, %d + %d waited calls, "
                            + "steps now %d / %d%n", all.length, pair[0].loadedSegments(), pair[1].loadedSegments(),
                    pair[0].waitedCalls(), pair[1].waitedCalls(), pair[0].currentStep(), pair[1].currentStep());

            pair[0].close();
            pair[1].close();
            SegmentIdGenerator restarted = generator(tag, options);
            assertThat(restarted.nextId()).isGreaterThan(highest);
            assertThat(restarted.nextIds(3)[0]).isGreaterThan(highest);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Tag("exclusive")
    void aSteadyCallerNeverWaitsForARangeOnceWarmedUp() {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 100);
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder()
                .minStep(100).maxStep(100_000).targetLifetime(Duration.ofMillis(500)).maxStepsPerLoad(1).build())
                .preload();
        long previous = 0;
        previous = steady(g, 100_000, Duration.ofMillis(500), previous); // warm-up: the step adapts to the rate
        long waitedAfterWarmUp = g.waitedCalls();
        long loadedAfterWarmUp = g.loadedSegments();
        // segments of about 500 ms, loaded at 20 %: a load has 400 ms, enough on a busy 2-core machine
        steady(g, 100_000, Duration.ofSeconds(3), previous);
        System.out.printf("steady caller: %d waited calls after warm-up (%d before), %d ranges loaded, step %d%n",
                g.waitedCalls() - waitedAfterWarmUp, waitedAfterWarmUp, g.loadedSegments() - loadedAfterWarmUp,
                g.currentStep());
        assertThat(g.loadedSegments() - loadedAfterWarmUp).as("ranges loaded while measuring").isGreaterThanOrEqualTo(3);
        assertThat(g.waitedCalls() - waitedAfterWarmUp).as("calls that waited for a range").isZero();
    }

    /** Takes numbers at {@code perSecond}, in 1 ms ticks, for {@code duration}; checks they increase. */
    private static long steady(SegmentIdGenerator g, int perSecond, Duration duration, long previous) {
        int perTick = perSecond / 1000;
        long start = System.nanoTime();
        long ticks = duration.toMillis();
        for (long tick = 0; tick < ticks; tick++) {
            for (int i = 0; i < perTick; i++) {
                long id = g.nextId();
                if (id <= previous) { // not AssertJ: at a million numbers a second its cost would slow the caller
                    throw new AssertionError("number " + id + " after " + previous);
                }
                previous = id;
            }
            Pacing.parkUntil(start + (tick + 1) * 1_000_000L);
        }
        return previous;
    }

    @Test
    void theNextRangeIsLoadedAtTheCheckpointAtOrJustBelowThePrefetchThreshold() {
        // 20 % of 1 000 000 is 200 000; the hot path tests one mask, so the load starts at 199 680 = 195 × 1024
        assertPrefetchIndex(1_000_000, 0.2, 199_680);
        // 50 % of 200 is 100; small ranges are checked every 64 numbers (the largest power of two up to 100)
        assertPrefetchIndex(200, 0.5, 64);
        // a threshold at the very start of a range: the first number taken loads the next range
        assertPrefetchIndex(1_000, 0.0005, 0);
    }

    private void assertPrefetchIndex(int step, double threshold, int expectedIndex) {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, step);
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder().minStep(step).maxStep(step)
                .initialStep(step).prefetchThreshold(threshold).executor(Runnable::run).build()).preload();
        if (expectedIndex > 0) {
            g.nextIds(expectedIndex);
        }
        assertThat(g.loadedSegments()).as("ranges loaded after %d numbers of a range of %d", expectedIndex, step)
                .isEqualTo(1);
        g.nextId();
        assertThat(g.loadedSegments()).as("ranges loaded after %d numbers of a range of %d", expectedIndex + 1, step)
                .isEqualTo(2);
        // the second range is only prefetched: numbers go on from the first
        assertThat(g.nextId()).isEqualTo(expectedIndex + 2L);
    }

    @Test
    void theStepGrowsToDemandAtOnceAndShrinksByAtMostHalfPerRange() {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 100);
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder()
                .minStep(100).maxStep(10_000).targetLifetime(Duration.ofSeconds(1)).maxStepsPerLoad(1)
                .executor(Runnable::run).nanoClock(clock::get).build());
        List<Segment> seen = new ArrayList<>();
        // 1 000 000 numbers per second: a segment of 10 000 lasts 10 ms, far below the 1 s target
        take(g, 200, 1_000, clock, seen);
        assertThat(seen.get(0).step()).isEqualTo(100);
        assertThat(seen.get(1).step()).as("one surge grows the step to what the demand needs").isEqualTo(10_000);
        // 1 000 per second: the target needs 1 000 numbers; the step halves per range until it gets there
        seen.clear();
        take(g, 30_000, 1_000_000, clock, seen);
        List<Integer> steps = seen.stream().map(Segment::step).toList();
        for (int i = 1; i < steps.size(); i++) {
            assertThat(steps.get(i)).as("steps %s", steps).isGreaterThanOrEqualTo(steps.get(i - 1) / 2);
        }
        assertThat(steps).as("steps %s", steps).contains(5_000, 2_500);
        assertThat(steps.get(steps.size() - 1)).as("steps %s", steps).isBetween(900, 1_300);
        assertThat(g.waitedCalls()).as("only the first call waited").isEqualTo(1);
    }

    @Test
    @Tag("exclusive")
    void aSteadyCallerAtAMillionNumbersASecondWithAFixedStepOf1000NeverWaitsOnceWarmedUp() {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 1_000);
        // the fixed step Leaf and Tinyid default to; every other setting is the default
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder()
                .minStep(1_000).maxStep(1_000).build()).preload();
        long previous = steady(g, 1_000_000, Duration.ofSeconds(1), 0); // warm-up: loads grow to a second's demand
        long waitedAfterWarmUp = g.waitedCalls();
        long loadedAfterWarmUp = g.loadedSegments();
        long issuedAfterWarmUp = g.status().issued();
        steady(g, 1_000_000, Duration.ofSeconds(4), previous);
        long issued = g.status().issued() - issuedAfterWarmUp;
        System.out.printf("steady caller at 1 M/s, step 1000: %d numbers, %d waited calls after warm-up (%d before), "
                        + "%d loads of %d steps each%n", issued, g.waitedCalls() - waitedAfterWarmUp,
                waitedAfterWarmUp, g.loadedSegments() - loadedAfterWarmUp, g.currentStepsPerLoad());
        assertThat(issued).as("numbers taken while measuring").isEqualTo(4_000_000);
        assertThat(g.loadedSegments() - loadedAfterWarmUp).as("loads while measuring").isGreaterThanOrEqualTo(3);
        assertThat(g.currentStep()).as("the step stays fixed").isEqualTo(1_000);
        assertThat(g.waitedCalls() - waitedAfterWarmUp).as("calls that waited for a range").isZero();
    }

    @Test
    void aFixedStepTooSmallForTheDemandIsLoadedManyWholeStepsAtOnceAndARestartSkipsAtMostTwoLoads() {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 1_000);
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        SegmentGeneratorOptions options = SegmentGeneratorOptions.builder()
                .minStep(1_000).maxStep(1_000).minLoadLifetime(Duration.ofMillis(100)).maxStepsPerLoad(500)
                .executor(Runnable::run).nanoClock(clock::get).build();
        SegmentIdGenerator g = generator(tag, options);
        List<Segment> seen = new ArrayList<>();
        // 1 000 000 numbers per second: one step lasts 1 ms; 100 ms of demand are 100 steps. The first load is one
        // step, the second too (one short measure is no evidence), then loads grow at most four times each.
        take(g, 300_000, 1_000, clock, seen);
        List<Integer> ramp = seen.stream().map(Segment::step).toList();
        assertThat(ramp.subList(0, 4)).as("loads %s", ramp).containsExactly(1_000, 1_000, 4_000, 16_000);
        for (int i = 1; i < ramp.size(); i++) {
            assertThat(ramp.get(i)).as("loads %s", ramp).isLessThanOrEqualTo(4 * ramp.get(i - 1));
        }
        assertThat(ramp.get(ramp.size() - 1)).as("what 100 ms of demand consume, loads %s", ramp)
                .isBetween(100_000, 101_000);
        assertThat(g.currentStep()).isEqualTo(1_000);
        assertThat(g.currentStepsPerLoad()).isBetween(100, 101);
        // 10 000 000 per second would want 1 000 steps; 500 are allowed
        take(g, 2_000_000, 100, clock, seen);
        assertThat(seen.get(seen.size() - 1).step()).isEqualTo(500_000);
        assertThat(seen).allSatisfy(s -> assertThat(s.step() % 1_000).as("whole steps: %s", s).isZero());
        assertThat(g.status().step()).isEqualTo(1_000);

        // a restart now skips the rest of the current load and the prefetched one: at most two loads of 500 steps
        long highest = g.nextId();
        SegmentIdGenerator restarted = generator(tag, options);
        long first = restarted.nextId();
        assertThat(first).isGreaterThan(highest);
        assertThat(first - highest - 1).as("numbers a restart skips").isLessThanOrEqualTo(2L * 500 * 1_000);
        restarted.close();

        // a lull of 10 000 per second: loads shrink by at most half each, down to one step
        seen.clear();
        take(g, 1_500_000, 100_000, clock, seen);
        List<Integer> sizes = seen.stream().map(Segment::step).toList();
        for (int i = 1; i < sizes.size(); i++) {
            assertThat(sizes.get(i)).as("loads %s", sizes).isGreaterThanOrEqualTo(sizes.get(i - 1) / 2);
        }
        assertThat(sizes.get(sizes.size() - 1)).as("loads %s", sizes).isEqualTo(1_000);

        // one step per load when asked for: the store advances by exactly the step
        String strict = newTag();
        store.newAllocator(false).register(strict, 0, 1_000);
        SegmentIdGenerator oneStep = generator(strict, SegmentGeneratorOptions.builder().minStep(1_000)
                .maxStep(1_000).maxStepsPerLoad(1).executor(Runnable::run).nanoClock(clock::get).build());
        List<Segment> strictSeen = new ArrayList<>();
        take(oneStep, 20_000, 100, clock, strictSeen);
        assertThat(strictSeen).hasSizeGreaterThanOrEqualTo(20)
                .allSatisfy(s -> assertThat(s.step()).isEqualTo(1_000));
    }

    private static void take(SegmentIdGenerator g, int count, long nanosEach, AtomicLong clock, List<Segment> seen) {
        for (int i = 0; i < count; i++) {
            g.nextId();
            Segment s = g.currentSegment();
            if (seen.isEmpty() || seen.get(seen.size() - 1) != s) {
                seen.add(s);
            }
            clock.addAndGet(nanosEach);
        }
    }

    @Test
    void aCallerWaitsAtMostMaxWaitWhenNoRangeArrivesAndGetsOneWhenTheStoreRecovers() throws Exception {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 100);
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder()
                .minStep(100).maxStep(100).maxWait(Duration.ofMillis(300)).build());
        try (Connection c = store.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT max_id FROM " + store.table()
                    + " WHERE biz_tag = ? FOR UPDATE")) {
                ps.setString(1, tag);
                ps.executeQuery().close();
            }
            long start = System.nanoTime();
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(SegmentRefillTimeoutException.class,
                            e -> assertThat(e.getBizTag()).isEqualTo(tag))
                    .hasMessageContaining("'" + tag + "'")
                    .hasMessageContaining("idworker.segment.max-wait");
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMs).isBetween(250L, 5_000L);
            c.rollback();
        }
        assertThat(g.nextId()).isEqualTo(1);
        // the load the first call started completes once the lock is gone; the second call may find it done
        assertThat(g.waitedCalls()).isBetween(1L, 2L);
    }

    @Test
    void anUnknownTagFailsAtOnceNamingItAndWorksOnceRegistered() throws Exception {
        String tag = newTag();
        SegmentIdGenerator g = generator(tag, SegmentGeneratorOptions.builder().maxWait(Duration.ofSeconds(10)).build());
        long start = System.nanoTime();
        assertThatThrownBy(g::nextId)
                .isInstanceOfSatisfying(UnknownSegmentTagException.class, e -> assertThat(e.getBizTag()).isEqualTo(tag))
                .hasMessageContaining("'" + tag + "'");
        assertThatThrownBy(() -> g.nextIds(5)).isInstanceOf(UnknownSegmentTagException.class);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        assertThatThrownBy(() -> generator(tag, null).preload()).isInstanceOf(UnknownSegmentTagException.class);

        store.newAllocator(false).register(tag, 10, 100);
        Thread.sleep(60); // past the retry back-off after a failed load
        assertThat(g.nextId()).isEqualTo(11);
    }

    @Test
    void batchesSpanRangesAndStayIncreasing() {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(true);
        SegmentIdGenerator g = new SegmentIdGenerator(allocator, tag,
                SegmentGeneratorOptions.builder().minStep(100).maxStep(100).build());
        generators.add(g);
        long[] ids = g.nextIds(250);
        assertThat(ids).hasSize(250);
        for (int i = 1; i < ids.length; i++) {
            assertThat(ids[i]).isGreaterThan(ids[i - 1]);
        }
        assertThat(ids[0]).isEqualTo(1);
        assertThat(g.nextIds(1)[0]).isGreaterThan(ids[249]);
        assertThatThrownBy(() -> g.nextIds(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClosedGeneratorIssuesNothing() {
        String tag = newTag();
        SegmentIdGenerator g = new SegmentIdGenerator(store.newAllocator(true), tag);
        generators.add(g);
        g.nextId();
        g.close();
        assertThatThrownBy(g::nextId).isInstanceOf(IdWorkerException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> g.nextIds(2)).isInstanceOf(IdWorkerException.class);
    }

    @Test
    void theLookupKeepsOneGeneratorPerTagAndForgetsUnknownTags() {
        String known = newTag();
        String unknown = newTag();
        store.newAllocator(false).register(known, 0, 10);
        SegmentAllocator allocator = store.newAllocator(false);
        try (SegmentIdGenerators lookup = new SegmentIdGenerators(tag -> new SegmentIdGenerator(allocator, tag))) {
            assertThat(lookup.forTag(known)).isSameAs(lookup.forTag(known));
            assertThat(lookup.nextId(known)).isEqualTo(1);
            assertThat(lookup.nextIds(known, 2)).containsExactly(2, 3);
            assertThatThrownBy(() -> lookup.nextId(unknown)).isInstanceOf(UnknownSegmentTagException.class);
            assertThat(lookup.tags()).containsExactly(known);
        }
    }
}
