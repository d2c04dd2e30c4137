package io.github.idworker.test.review;

import org.junit.jupiter.api.Tag;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adversarial review of the in-process segment generator's multi-step loads, over H2.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SegmentMultiStepAttackTest {

    private JdbcSegmentAllocatorStore store;
    private final List<String> tags = new ArrayList<>();

    @BeforeEach
    void open() {
        store = new JdbcSegmentAllocatorStore("jdbc:h2:mem:review-segment;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @AfterEach
    void close() {
        tags.forEach(store::deleteTag);
        store.close();
    }

    private String newTag() {
        String tag = "rvs-" + UUID.randomUUID().toString().substring(0, 13);
        tags.add(tag);
        store.newAllocator(false).register(tag, 0, 100);
        return tag;
    }

    /** The real allocator, failing every other call (before touching the store) as a flaky network would. */
    static final class FlakyAllocator implements SegmentAllocator {
        final SegmentAllocator real;
        final AtomicLong calls = new AtomicLong();
        final AtomicLong asked = new AtomicLong();

        FlakyAllocator(SegmentAllocator real) {
            this.real = real;
        }

        @Override
        public Segment allocate(String bizTag, int step) {
            if (step < 1) {
                throw new AssertionError("step overflowed: " + step);
            }
            asked.addAndGet(step);
            if (calls.incrementAndGet() % 2 == 0) {
                throw new CenterUnavailableException("flaky store (review)", null);
            }
            return real.allocate(bizTag, step);
        }

        @Override
        public boolean register(String bizTag, long startAfter, int defaultStep) {
            return real.register(bizTag, startAfter, defaultStep);
        }
    }

    private record Instance(int id, long createdNanos, SegmentIdGenerator g) {
    }

    private record Call(int instance, int thread, long endNanos, long first, long last) {
    }

    /**
     * 16 threads over 4 instance slots; every 150 ms one slot is "redeployed" (closed, replaced by an instance with
     * another step range, max steps per load and min load lifetime); a shared clock that steps forward by random
     * amounts, sometimes jumps back 2 s or forward 60 s; an allocator failing every other call; nextId and
     * nextIds(1..300) mixed. Checks: no number twice; per thread per instance strictly increasing; every instance's
     * first number above everything issued before it was created.
     */
    @Test
    void sixteenThreadsOverFourRedeployedInstancesWithAJumpingClockAndAFlakyStore() throws Exception {
        String tag = newTag();
        AtomicLong clock = new AtomicLong(1_000_000_000_000L);
        AtomicBoolean running = new AtomicBoolean(true);
        FlakyAllocator allocator = new FlakyAllocator(store.newAllocator(false));
        AtomicInteger ids = new AtomicInteger();
        List<Instance> instances = Collections.synchronizedList(new ArrayList<>());
        AtomicReferenceArray<Instance> slots = new AtomicReferenceArray<>(4);
        java.util.function.Supplier<Instance> newInstance = () -> {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            int min = new int[] {1, 10, 100, 1000}[r.nextInt(4)];
            int max = min * new int[] {1, 2, 50}[r.nextInt(3)];
            SegmentGeneratorOptions o = SegmentGeneratorOptions.builder().minStep(min).maxStep(max)
                    .maxStepsPerLoad(new int[] {1, 4, 10_000, Integer.MAX_VALUE}[r.nextInt(4)])
                    .minLoadLifetime(Duration.ofMillis(new int[] {1, 100, 5_000}[r.nextInt(3)]))
                    .prefetchThreshold(new double[] {0.01, 0.2, 0.99}[r.nextInt(3)])
                    .targetLifetime(Duration.ofMillis(new int[] {1, 1_000, 900_000}[r.nextInt(3)]))
                    .maxWait(Duration.ofSeconds(2)).nanoClock(clock::get).build();
            Instance in = new Instance(ids.incrementAndGet(), System.nanoTime(), new SegmentIdGenerator(allocator, tag, o));
            instances.add(in);
            return in;
        };
        for (int i = 0; i < 4; i++) {
            slots.set(i, newInstance.get());
        }
        Thread ticker = new Thread(() -> {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            while (running.get()) {
                int k = r.nextInt(100);
                if (k == 0) {
                    clock.addAndGet(-2_000_000_000L);
                } else if (k == 1) {
                    clock.addAndGet(60_000_000_000L);
                } else {
                    clock.addAndGet(r.nextLong(0, 3_000_000));
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        Thread redeployer = new Thread(() -> {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            while (running.get()) {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    return;
                }
                int s = r.nextInt(4);
                Instance old = slots.get(s);
                slots.set(s, newInstance.get());
                old.g().close();
            }
        });
        ticker.start();
        redeployer.start();
        int threads = 16;
        List<List<Call>> perThread = new ArrayList<>();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<Call> mine = new ArrayList<>();
                perThread.add(mine);
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
                    while (System.nanoTime() < until) {
                        Instance in = slots.get(thread % 4);
                        int count = r.nextInt(100) < 80 ? 1 : 1 + r.nextInt(300);
                        long[] got;
                        try {
                            got = count == 1 ? new long[] {in.g().nextId()} : in.g().nextIds(count);
                        } catch (IdWorkerException e) {
                            failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                            continue;
                        }
                        long end = System.nanoTime();
                        // a batch spanning loads is not consecutive: record each run of consecutive numbers, which
                        // must increase within the batch too
                        int from = 0;
                        for (int k = 1; k <= got.length; k++) {
                            if (k == got.length || got[k] != got[k - 1] + 1) {
                                mine.add(new Call(in.id(), thread, end, got[from], got[k - 1]));
                                from = k;
                            }
                        }
                        if (count > 1) {
                            clock.addAndGet(r.nextLong(0, 10_000));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            running.set(false);
            ticker.join();
            redeployer.join();
            pool.shutdownNow();
            for (int i = 0; i < 4; i++) {
                slots.get(i).g().close();
            }
        }
        List<Call> all = new ArrayList<>();
        perThread.forEach(all::addAll);
        // ids within each batch are consecutive (checked by construction: first..last); check the batches
        long numbers = 0;
        for (Call c : all) {
            numbers += c.last() - c.first() + 1;
        }
        long[] firsts = new long[all.size()];
        all.sort((a, b) -> Long.compare(a.first(), b.first()));
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).first()).as("issued twice: %s and %s", all.get(i - 1), all.get(i))
                    .isGreaterThan(all.get(i - 1).last());
        }
        for (List<Call> mine : perThread) {
            Map<Integer, Long> lastOf = new java.util.HashMap<>();
            for (Call c : mine) {
                Long prev = lastOf.put(c.instance(), c.last());
                if (prev != null) {
                    assertThat(c.first()).as("per thread per instance increasing: %s after %d", c, prev).isGreaterThan(prev);
                }
            }
        }
        all.sort((a, b) -> Long.compare(a.endNanos(), b.endNanos()));
        long[] ends = all.stream().mapToLong(Call::endNanos).toArray();
        long[] runningMax = new long[all.size()];
        for (int i = 0; i < all.size(); i++) {
            runningMax[i] = Math.max(i == 0 ? Long.MIN_VALUE : runningMax[i - 1], all.get(i).last());
        }
        Map<Integer, Long> firstOf = new java.util.HashMap<>();
        for (Call c : all) {
            firstOf.merge(c.instance(), c.first(), Math::min);
        }
        int checked = 0;
        for (Instance in : instances) {
            Long first = firstOf.get(in.id());
            if (first == null) {
                continue;
            }
            int before = Arrays.binarySearch(ends, in.createdNanos());
            before = before >= 0 ? before : -before - 1;
            if (before > 0) {
                checked++;
                assertThat(first).as("instance %d started above everything issued before it", in.id())
                        .isGreaterThan(runningMax[before - 1]);
            }
        }
        System.out.printf("in-process chaos: %d calls, %d numbers, %d instances (%d restart checks), failures %s, "
                        + "allocator calls %d asking %d numbers, table max_id %d%n", all.size(), numbers, instances.size(),
                checked, failures, allocator.calls.get(), allocator.asked.get(), store.storedMaxId(tag));
        assertThat(failures.keySet()).allSatisfy(k -> assertThat(k).isIn("SegmentRefillTimeoutException", "IdWorkerException"));
    }

    /**
     * maxWait and the retry back-off run on System.nanoTime, not on the nanoClock option (meant for demand
     * measures): the review found a clock that does not advance turning one store failure into a wait without end.
     */
    @Test
    void aClockThatDoesNotAdvanceCannotMakeAWaitEndless() throws Exception {
        String tag = newTag();
        AtomicInteger calls = new AtomicInteger();
        SegmentAllocator real = store.newAllocator(false);
        SegmentAllocator failingOnce = new SegmentAllocator() {
            @Override
            public Segment allocate(String bizTag, int step) {
                if (calls.incrementAndGet() == 1) {
                    throw new CenterUnavailableException("one transient failure (review)", null);
                }
                return real.allocate(bizTag, step);
            }

            @Override
            public boolean register(String bizTag, long startAfter, int defaultStep) {
                return real.register(bizTag, startAfter, defaultStep);
            }
        };
        SegmentIdGenerator g = new SegmentIdGenerator(failingOnce, tag, SegmentGeneratorOptions.builder()
                .maxWait(Duration.ofMillis(200)).nanoClock(() -> 42L).build());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long t0 = System.nanoTime();
            Future<String> f = pool.submit(() -> {
                try {
                    return "number " + g.nextId();
                } catch (IdWorkerException e) {
                    return e.getClass().getSimpleName();
                }
            });
            String outcome;
            try {
                outcome = f.get(3, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                outcome = "still waiting after 3 s";
            }
            System.out.println("frozen nanoClock, maxWait 200 ms, store failed once then healthy: " + outcome
                    + " (allocator called " + calls.get() + " times)");
            assertThat(outcome).isNotEqualTo("still waiting after 3 s");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(3_000);
        } finally {
            pool.shutdownNow();
            g.close();
        }
    }

    /** close() while a load is in the allocator: nothing of that load is ever issued; a new instance starts above. */
    @Test
    void closeDuringALoadIssuesNothingOfItAndARestartStartsAbove() throws Exception {
        String tag = newTag();
        SegmentAllocator real = store.newAllocator(false);
        CountDownLatch inAllocator = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean block = new AtomicBoolean();
        SegmentAllocator blocking = new SegmentAllocator() {
            @Override
            public Segment allocate(String bizTag, int step) {
                if (block.compareAndSet(true, false)) {
                    inAllocator.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return real.allocate(bizTag, step);
            }

            @Override
            public boolean register(String bizTag, long startAfter, int defaultStep) {
                return real.register(bizTag, startAfter, defaultStep);
            }
        };
        SegmentGeneratorOptions o = SegmentGeneratorOptions.builder().minStep(10).maxStep(10).maxWait(Duration.ofSeconds(2))
                .build();
        SegmentIdGenerator g = new SegmentIdGenerator(blocking, tag, o);
        long highest = g.nextId();
        block.set(true);
        for (int i = 0; i < 5; i++) {
            highest = g.nextId(); // passes the prefetch index: the blocked load starts
        }
        assertThat(inAllocator.await(5, TimeUnit.SECONDS)).isTrue();
        g.close();
        release.countDown();
        Thread.sleep(100);
        List<String> after = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            try {
                after.add(Long.toString(g.nextId()));
            } catch (IdWorkerException e) {
                after.add("x");
            }
        }
        assertThat(after).containsOnly("x");
        SegmentIdGenerator restarted = new SegmentIdGenerator(real, tag, o);
        assertThat(restarted.nextId()).isGreaterThan(highest).isGreaterThan(20);
        restarted.close();
    }
}
