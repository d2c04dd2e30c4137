package io.github.idworker.test.segment;

import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.IdWorkerException;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentRowMovedBackException;
import io.github.idworker.segment.StaleSegmentException;
import io.github.idworker.segment.UnknownSegmentTagException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link SegmentAllocator} keeps, run against a real store. A store's test extends this class
 * and returns its store from {@link #createStore()}; nothing else is needed, for example
 * {@code class MyDbSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest { protected
 * SegmentAllocatorStore createStore() { return new MyDbStore(); } }}.
 *
 * <p>Each test uses fresh random tags and deletes them afterwards. Concurrency tests run 16 threads over two
 * allocators of one store, as two processes would. A row moved back is made with
 * {@link SegmentAllocatorStore#editMaxId}, as an operator would with SQL.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractSegmentAllocatorContractTest {

    /** Threads of the concurrency tests. */
    protected static final int THREADS = 16;

    private final List<String> tags = new ArrayList<>();
    protected SegmentAllocatorStore store;

    /** The store under test; called once per test. */
    protected abstract SegmentAllocatorStore createStore() throws Exception;

    /** Allocations per thread in {@link #rangesOfTwoAllocatorsOverSixteenThreadsNeverOverlapAndCoverEverything()}. */
    protected int allocationsPerThread() {
        return 40;
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (String tag : tags) {
            store.deleteTag(tag);
        }
        store.close();
    }

    /** A fresh tag, deleted after the test. */
    protected String newTag() {
        String tag = "s-" + UUID.randomUUID().toString().substring(0, 13);
        tags.add(tag);
        return tag;
    }

    /** Asserts that {@code segments} of {@code tag} tile {@code (startAfter, storedMax]} without overlap or hole. */
    protected void assertContiguous(String tag, Collection<Segment> segments, long startAfter) {
        List<Segment> sorted = new ArrayList<>(segments);
        sorted.sort(Comparator.comparingLong(Segment::firstId));
        long expectedFirst = startAfter + 1;
        for (Segment s : sorted) {
            assertThat(s.bizTag()).isEqualTo(tag);
            assertThat(s.firstId()).as("range after %s", expectedFirst - 1).isEqualTo(expectedFirst);
            assertThat(s.lastId()).isEqualTo(s.firstId() + s.step() - 1);
            expectedFirst = s.lastId() + 1;
        }
        assertThat(store.storedMaxId(tag)).as("stored max_id of %s", tag).isEqualTo(expectedFirst - 1);
    }

    /** Runs {@code task} on {@link #THREADS} threads released together and returns their results. */
    protected <T> List<T> onThreads(Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return task.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(100, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void rangesOfTwoAllocatorsOverSixteenThreadsNeverOverlapAndCoverEverything() throws Exception {
        String tag = newTag();
        SegmentAllocator first = store.newAllocator(false);
        SegmentAllocator second = store.newAllocator(false);
        assertThat(first.register(tag, 1_000, 100)).isTrue();
        ConcurrentLinkedQueue<Segment> all = new ConcurrentLinkedQueue<>();
        int perThread = allocationsPerThread();
        onThreads(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long previousMax = Long.MIN_VALUE;
            for (int i = 0; i < perThread; i++) {
                int step = 1 + random.nextInt(100);
                Segment s = (i % 2 == 0 ? first : second).allocate(tag, step);
                assertThat(s.step()).isEqualTo(step);
                assertThat(s.firstId()).as("each range lies above the ones this thread got before")
                        .isGreaterThan(previousMax);
                previousMax = s.lastId();
                all.add(s);
            }
            return null;
        });
        assertThat(all).hasSize(THREADS * perThread);
        assertContiguous(tag, all, 1_000);
    }

    @Test
    void sequentialRangesFollowEachOtherFromStartAfter() {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(false);
        allocator.register(tag, 41, 10);
        Segment a = allocator.allocate(tag, 10);
        Segment b = store.newAllocator(false).allocate(tag, 3);
        assertThat(a.firstId()).isEqualTo(42);
        assertThat(a.lastId()).isEqualTo(51);
        assertThat(a.maxId()).isEqualTo(51);
        assertThat(b.firstId()).isEqualTo(52);
        assertThat(b.lastId()).isEqualTo(54);
        assertThat(store.storedMaxId(tag)).isEqualTo(54);
    }

    @Test
    void unknownTagFailsNamingTheTagAndCreatesNothing() {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(false);
        assertThatThrownBy(() -> allocator.allocate(tag, 10))
                .isInstanceOfSatisfying(UnknownSegmentTagException.class,
                        e -> assertThat(e.getBizTag()).isEqualTo(tag))
                .hasMessageContaining("'" + tag + "'");
        assertThat(store.storedMaxId(tag)).isEqualTo(-1);
    }

    @Test
    void autoCreationRaceOfSixteenThreadsOverTwoAllocatorsCreatesTheTagOnce() throws Exception {
        String tag = newTag();
        SegmentAllocator first = store.newAllocator(true);
        SegmentAllocator second = store.newAllocator(true);
        List<Segment> segments = onThreads(() -> (ThreadLocalRandom.current().nextBoolean() ? first : second)
                .allocate(tag, 7));
        assertThat(segments).hasSize(THREADS);
        assertContiguous(tag, segments, 0);
        assertThat(store.storedMaxId(tag)).isEqualTo(7L * THREADS);
    }

    @Test
    void registrationIsIdempotentAndNeverResetsATag() throws Exception {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(false);
        assertThat(allocator.register(tag, 500, 10)).isTrue();
        assertThat(allocator.register(tag, 9_000, 20)).isFalse();
        assertThat(allocator.allocate(tag, 10).firstId()).isEqualTo(501);
        assertThat(store.newAllocator(true).register(tag, 0, 10)).isFalse();
        assertThat(allocator.allocate(tag, 10).firstId()).isEqualTo(511);

        String raced = newTag();
        List<Boolean> created = onThreads(() -> store.newAllocator(false)
                .register(raced, 100 * ThreadLocalRandom.current().nextInt(1, 10), 5));
        assertThat(created).containsOnlyOnce(true);
        long start = store.storedMaxId(raced);
        assertThat(start).isBetween(100L, 900L);
        assertThat(allocator.allocate(raced, 5).firstId()).isEqualTo(start + 1);
    }

    @Test
    @SuppressWarnings("NullAway") // passes a null tag on purpose: the contract refuses it
    void stepsAndArgumentsAreValidated() {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(true);
        assertThatThrownBy(() -> allocator.allocate(tag, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("step");
        assertThatThrownBy(() -> allocator.allocate(tag, -5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> allocator.allocate("", 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> allocator.allocate(null, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> allocator.allocate("x".repeat(129), 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> allocator.register(tag, -1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> allocator.register(tag, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.storedMaxId(tag)).as("nothing stored by rejected calls").isEqualTo(-1);

        allocator.register(tag, 0, 10);
        assertThat(allocator.allocate(tag, 1).firstId()).isEqualTo(1);
        assertThat(allocator.allocate(tag, Integer.MAX_VALUE).lastId()).isEqualTo(1L + Integer.MAX_VALUE);
    }

    @Test
    void aTagNearTheEndOfLongIsExhaustedWithoutOverflow() {
        String tag = newTag();
        SegmentAllocator allocator = store.newAllocator(false);
        allocator.register(tag, Long.MAX_VALUE - 10, 5);
        Segment last = allocator.allocate(tag, 10);
        assertThat(last.lastId()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> allocator.allocate(tag, 1))
                .isInstanceOfSatisfying(SegmentExhaustedException.class, e -> {
                    assertThat(e.getBizTag()).isEqualTo(tag);
                    assertThat(e.getMaxId()).isEqualTo(Long.MAX_VALUE);
                })
                .hasMessageContaining("'" + tag + "'");
        assertThat(store.storedMaxId(tag)).isEqualTo(Long.MAX_VALUE);
    }

    /** Asserts that {@code e} refuses {@code tag} naming it, the store and both values. */
    protected static void assertMovedBack(Throwable e, String tag, long maxId, long highWater) {
        assertThat(e).isInstanceOfSatisfying(SegmentRowMovedBackException.class, m -> {
            assertThat(m.getBizTag()).isEqualTo(tag);
            assertThat(m.getMaxId()).isEqualTo(maxId);
            assertThat(m.getHighWater()).isEqualTo(highWater);
            assertThat(m.getIssuedHigh()).isEqualTo(highWater);
            assertThat(m.getTable()).isNotBlank();
            assertThat(m.getMessage()).contains("'" + tag + "'", m.getTable(), "max_id " + maxId,
                    "high_water " + highWater, "raise max_id to at least " + highWater);
        });
    }

    /**
     * An operator lowers max_id by half. The allocator that handed out the ranges, a new one (a restart, another
     * node) and one that creates tags all refuse the tag with the typed exception and change nothing;
     * registering it again does not reset it; raising max_id back to the high-water is the recovery, and a
     * max_id raised above it (numbers skipped on purpose) is taken as the new high-water.
     */
    @Test
    void aRowMovedBackIsRefusedByTheAllocatorThatUsedItAndByFreshOnesUntilMaxIdIsRaisedAgain() {
        String tag = newTag();
        SegmentAllocator running = store.newAllocator(false);
        running.register(tag, 0, 100);
        for (int i = 0; i < 10; i++) {
            running.allocate(tag, 100);
        }
        store.editMaxId(tag, 500);
        for (SegmentAllocator a : List.of(running, store.newAllocator(false), store.newAllocator(true))) {
            assertThatThrownBy(() -> a.allocate(tag, 100)).satisfies(e -> assertMovedBack(e, tag, 500, 1_000));
            assertThatThrownBy(() -> a.allocate(tag, 1)).isInstanceOf(StaleSegmentException.class);
        }
        assertThat(store.storedMaxId(tag)).as("nothing allocated by a refusal").isEqualTo(500);
        assertThat(store.newAllocator(true).register(tag, 0, 100)).isFalse();
        assertThat(store.storedMaxId(tag)).isEqualTo(500);

        store.editMaxId(tag, 1_000); // the recovery: max_id back to at least the high-water
        assertThat(store.newAllocator(false).allocate(tag, 100).firstId()).isEqualTo(1_001);
        store.editMaxId(tag, 5_000); // numbers skipped on purpose: allowed
        assertThat(running.allocate(tag, 100).firstId()).isEqualTo(5_001);
        store.editMaxId(tag, 5_050); // below the range just handed out
        assertThatThrownBy(() -> store.newAllocator(false).allocate(tag, 100))
                .satisfies(e -> assertMovedBack(e, tag, 5_050, 5_100));

        String registered = newTag(); // moved back before its first range: below startAfter
        store.newAllocator(false).register(registered, 1_000, 10);
        store.editMaxId(registered, 10);
        assertThatThrownBy(() -> store.newAllocator(false).allocate(registered, 10))
                .satisfies(e -> assertMovedBack(e, registered, 10, 1_000));
    }

    /**
     * 16 threads over two allocators take ranges while an operator moves the row back to half of where it stood:
     * every range handed out, before and after, is unique, and every refusal is the typed one.
     */
    @Test
    void aRowMovedBackWhileSixteenThreadsAllocateNeverYieldsAnOverlappingRange() throws Exception {
        String tag = newTag();
        SegmentAllocator first = store.newAllocator(false);
        SegmentAllocator second = store.newAllocator(false);
        first.register(tag, 0, 10);
        ConcurrentLinkedQueue<Segment> all = new ConcurrentLinkedQueue<>();
        AtomicInteger refusals = new AtomicInteger();
        AtomicLong movedTo = new AtomicLong(-1);
        int perThread = allocationsPerThread();
        onThreads(() -> {
            for (int i = 0; i < perThread; i++) {
                if (i == perThread / 2 && movedTo.get() < 0) {
                    synchronized (movedTo) {
                        if (movedTo.get() < 0) {
                            long half = store.storedMaxId(tag) / 2;
                            store.editMaxId(tag, half);
                            movedTo.set(half);
                        }
                    }
                }
                try {
                    all.add((i % 2 == 0 ? first : second).allocate(tag, 10));
                } catch (StaleSegmentException e) {
                    assertThat(e).isInstanceOf(SegmentRowMovedBackException.class);
                    refusals.incrementAndGet();
                }
            }
            return null;
        });
        List<Segment> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparingLong(Segment::firstId));
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i).firstId()).as("%s overlaps %s", sorted.get(i), sorted.get(i - 1))
                    .isGreaterThan(sorted.get(i - 1).lastId());
        }
        assertThat(refusals.get()).as("allocations after the row moved back").isPositive();
        assertThat(store.storedMaxId(tag)).isEqualTo(movedTo.get());
    }

    /**
     * After the row moved back, a generator started afterwards (a restart, another node) issues nothing on 16
     * threads, and the generator that was running issues only what it had loaded: no number twice.
     */
    @Test
    void aFreshGeneratorOverARowMovedBackIssuesNothingOnSixteenThreads() throws Exception {
        String tag = newTag();
        store.newAllocator(false).register(tag, 0, 1_000);
        SegmentGeneratorOptions options = SegmentGeneratorOptions.builder().minStep(1_000).maxStep(1_000)
                .maxStepsPerLoad(1).maxWait(Duration.ofSeconds(10)).build();
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> repeats = new ConcurrentLinkedQueue<>();
        try (SegmentIdGenerator running = new SegmentIdGenerator(store.newAllocator(false), tag, options)) {
            for (int i = 0; i < 20_000; i++) {
                issued.add(running.nextId());
            }
            long highWater = store.storedMaxId(tag); // or one range less: a range ahead may be loading
            store.editMaxId(tag, highWater / 2);
            AtomicInteger freshIssued = new AtomicInteger();
            AtomicInteger refusals = new AtomicInteger();
            ConcurrentLinkedQueue<IdWorkerException> failures = new ConcurrentLinkedQueue<>();
            try (SegmentIdGenerator fresh = new SegmentIdGenerator(store.newAllocator(false), tag, options)) {
                AtomicInteger thread = new AtomicInteger();
                onThreads(() -> {
                    boolean onFresh = thread.getAndIncrement() % 2 == 0;
                    SegmentIdGenerator g = onFresh ? fresh : running;
                    for (int i = 0; i < 5_000; i++) {
                        long id;
                        try {
                            id = g.nextId();
                        } catch (IdWorkerException e) {
                            refusals.incrementAndGet();
                            failures.add(e);
                            continue;
                        }
                        if (onFresh) {
                            freshIssued.incrementAndGet();
                        }
                        if (!issued.add(id)) {
                            repeats.add(id);
                        }
                    }
                    return null;
                });
            }
            System.out.printf("row moved back from %d to %d: %d numbers issued in all, %d repeated, %d by the fresh "
                    + "generator, %d refusals%n", highWater, highWater / 2, issued.size() + repeats.size(),
                    repeats.size(), freshIssued.get(), refusals.get());
            assertThat(repeats).as("numbers issued twice").isEmpty();
            assertThat(freshIssued.get()).as("numbers the fresh generator issued").isZero();
            assertThat(refusals.get()).isPositive();
            for (IdWorkerException e : failures) {
                // a range the running generator loaded ahead may have landed after highWater was read
                assertThat(e).isInstanceOfSatisfying(SegmentRowMovedBackException.class, m -> assertMovedBack(m, tag,
                        highWater / 2, Math.max(highWater, m.getHighWater())));
            }
            assertThat(store.storedMaxId(tag)).isEqualTo(highWater / 2);
        }
    }
}
