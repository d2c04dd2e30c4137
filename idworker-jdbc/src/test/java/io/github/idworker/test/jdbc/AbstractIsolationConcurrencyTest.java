package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sixteen threads racing for the same rows through a pool whose connections default to REPEATABLE READ or
 * SERIALIZABLE, as many teams configure it: every call must succeed, exactly as under READ COMMITTED. A lost
 * race is part of the algorithm, never a failure the caller sees.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class AbstractIsolationConcurrencyTest {

    static final int THREADS = 16;
    private static final int ROUNDS = 6;

    private final Database database;

    protected AbstractIsolationConcurrencyTest(Database database) {
        this.database = database;
    }

    /** Further pool settings of the database's strictest form of the level, where it has one. */
    protected void configure(HikariConfig pool) {
    }

    private Consumer<HikariConfig> pool(String isolation) {
        return pool -> {
            pool.setTransactionIsolation(isolation);
            configure(pool);
        };
    }

    private static LeaseRequest request(String ns, long workerNow) {
        return new LeaseRequest(ns, THREADS, UUID.randomUUID().toString(), Duration.ofSeconds(15), workerNow,
                Duration.ofSeconds(1), "test-host", 42, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 4, 12).pinned());
    }

    @ParameterizedTest
    @ValueSource(strings = {"TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE"})
    void sixteenThreadsBorrowingReturnedSlotsAllGetOne(String isolation) throws Exception {
        String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
        try (JdbcSequenceManagerStore store = new JdbcSequenceManagerStore(database.url(), database.user(), "",
                JdbcSequenceManager.DEFAULT_TABLE, pool(isolation))) {
            try {
                List<WorkerLease> leases = new ArrayList<>();
                ISequenceManager setup = store.newManager();
                for (int i = 0; i < THREADS; i++) {
                    leases.add(setup.borrow(request(ns, System.currentTimeMillis())));
                }
                for (int round = 0; round < ROUNDS; round++) {
                    // returned with a high-water in the past: every borrower wants slot 0 first, then slot 1, ...
                    for (WorkerLease lease : leases) {
                        setup.giveBack(lease, System.currentTimeMillis() - 60_000);
                    }
                    long now = System.currentTimeMillis();
                    leases = Concurrently.onThreads(THREADS, () -> store.newManager().borrow(request(ns, now)));
                    Set<Integer> slots = new HashSet<>();
                    leases.forEach(l -> slots.add(l.workerId()));
                    assertThat(slots).as("round %s", round).hasSize(THREADS);
                }
            } finally {
                store.deleteNamespace(ns);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE"})
    void sixteenThreadsAllocatingOneTagAllGetTheirRanges(String isolation) throws Exception {
        String tag = "s-" + UUID.randomUUID().toString().substring(0, 13);
        try (JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore(database.url(), database.user(), "",
                JdbcSegmentAllocator.DEFAULT_TABLE, pool(isolation))) {
            try {
                SegmentAllocator allocator = store.newAllocator(false);
                allocator.register(tag, 0, 10);
                List<List<Segment>> perThread = Concurrently.onThreads(THREADS, () -> {
                    List<Segment> mine = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        mine.add(allocator.allocate(tag, 10));
                    }
                    return mine;
                });
                List<Segment> all = new ArrayList<>();
                perThread.forEach(all::addAll);
                all.sort(Comparator.comparingLong(Segment::firstId));
                for (int i = 0; i < all.size(); i++) {
                    assertThat(all.get(i).firstId()).isEqualTo(10L * i + 1);
                }
                assertThat(store.storedMaxId(tag)).isEqualTo(10L * THREADS * 20);
            } finally {
                store.deleteTag(tag);
            }
        }
    }
}
