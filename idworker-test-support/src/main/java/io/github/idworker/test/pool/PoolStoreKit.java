package io.github.idworker.test.pool;

import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.test.Racers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The store, fresh entity keys and assertions of the pool store contract kit; the tests are in its subclasses, a
 * chain that ends in {@link AbstractPoolStoreContractTest} (see it for how a store runs the kit). Every key a test
 * makes through {@link #newKey()} is deleted after it, and the store is closed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class PoolStoreKit {

    /** Threads of the concurrency tests. */
    protected static final int THREADS = 16;
    /** Store instances the threads share, as that many processes over one backing store. */
    protected static final int STORES = 4;
    /** Concurrent registrations of one entity. */
    protected static final int REGISTRATIONS = 8;
    /** Two deployments splitting the ID space, as environments 0/2 and 1/2. */
    protected static final PoolEnvironment FIRST_OF_TWO = new PoolEnvironment(0, 2);
    protected static final PoolEnvironment SECOND_OF_TWO = new PoolEnvironment(1, 2);

    /** The keys this test made, deleted after it; a test adds one it makes by hand. */
    final List<String> keys = new ArrayList<>();
    protected PoolStoreStore store;

    /** The store under test; called once per test. */
    protected abstract PoolStoreStore createStore() throws Exception;

    /** Reservations per thread in the tests where {@value #THREADS} threads reserve over {@value #STORES} stores. */
    protected int reservationsPerThread() {
        return 25;
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (String key : keys) {
                store.deleteEntity(key);
            }
        } finally {
            store.close();
        }
    }

    /** A fresh entity key, deleted after the test. */
    protected String newKey() {
        String key = "p-" + UUID.randomUUID().toString().substring(0, 13);
        keys.add(key);
        return key;
    }

    /** A {@code MONOTONIC} entity under a fresh key, step 10, starting at offset 1 000. */
    protected PoolEntity.Builder newEntity() {
        return PoolEntity.builder(newKey()).name("orders").step(10).startOffset(1_000);
    }

    /** {@code count} independent store instances over the backing store. */
    protected List<PoolStore> newStores(int count) {
        List<PoolStore> stores = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            stores.add(store.newStore());
        }
        return stores;
    }

    /** The entity's {@code current-offset} as a fresh store instance reads it. */
    protected long currentOffset(String key) {
        return store.newStore().find(key).orElseThrow().currentOffset();
    }

    /** Runs {@code task.apply(i)} on {@code threads} threads released together; their results in order. */
    protected static <T> List<T> onThreads(int threads, IntFunction<Callable<T>> task) throws InterruptedException {
        return Racers.race(threads, task, 100, TimeUnit.SECONDS);
    }

    static <T> List<T> flatten(List<List<T>> lists) {
        List<T> all = new ArrayList<>();
        lists.forEach(all::addAll);
        return all;
    }

    /**
     * Asserts that {@code reservations} hold every offset from {@code first} to {@code last} exactly once: no
     * offset twice, no hole. A failure counts the overlaps and holes, to show how badly a broken store failed.
     */
    protected static void assertCoverExactly(Collection<PoolReservation> reservations, long first, long last) {
        List<PoolReservation> sorted = reservations.stream()
                .sorted(Comparator.comparingLong(PoolReservation::firstOffset)).toList();
        long next = first;
        long offsets = 0;
        long overlapping = 0;
        long offsetsTwice = 0;
        long holes = 0;
        String example = null;
        for (PoolReservation r : sorted) {
            offsets += r.size();
            if (r.firstOffset() < next) {
                overlapping++;
                offsetsTwice += Math.min(r.lastOffset(), next - 1) - r.firstOffset() + 1;
                if (example == null) {
                    example = "offset " + r.firstOffset() + " reserved twice";
                }
            } else if (r.firstOffset() > next) {
                holes++;
                if (example == null) {
                    example = "offsets " + next + " to " + (r.firstOffset() - 1) + " never reserved";
                }
            }
            next = Math.max(next, r.lastOffset() + 1);
        }
        if (next != last + 1) {
            holes++;
            if (example == null) {
                example = "reservations end at " + (next - 1) + ", current-offset is " + last;
            }
        }
        if (example != null) {
            fail("%d reservations (%d offsets) of %d..%d: %d overlap an earlier one (%d offsets reserved twice), "
                    + "%d holes; e.g. %s", sorted.size(), offsets, first, last, overlapping, offsetsTwice, holes,
                    example);
        }
        assertThat(offsets).as("offsets reserved in %s..%s", first, last).isEqualTo(last - first + 1);
    }
}
