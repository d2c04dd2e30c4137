package io.github.idworker.test.segment;

import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.UnknownSegmentTagException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link SegmentAllocator} keeps, run against a real store. A store's test extends this class
 * and returns its store from {@link #createStore()}; nothing else is needed, for example
 * {@code class MyDbSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest { protected
 * SegmentAllocatorStore createStore() { return new MyDbStore(); } }}.
 *
 * <p>Each test uses fresh random tags and deletes them afterwards. Concurrency tests run 16 threads over two
 * allocators of one store, as two processes would.
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
}
