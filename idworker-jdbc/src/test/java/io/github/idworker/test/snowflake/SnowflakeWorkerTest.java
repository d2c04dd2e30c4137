package io.github.idworker.test.snowflake;

import io.github.idworker.ClockMovedBackwardsException;
import io.github.idworker.TimestampExhaustedException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.jdbc.JdbcSequenceManagerStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One worker under concurrency, over the JDBC centre on H2: uniqueness, per-thread order, decoding. */
class SnowflakeWorkerTest {

    private JdbcSequenceManagerStore store;
    private String ns;

    @BeforeEach
    void setUp() {
        store = new JdbcSequenceManagerStore("jdbc:h2:mem:worker;DB_CLOSE_DELAY=-1", "sa", "");
        ns = "w-" + UUID.randomUUID().toString().substring(0, 12);
    }

    @AfterEach
    void tearDown() {
        store.deleteNamespace(ns);
        store.close();
    }

    /**
     * A short lease: a new namespace's first borrow waits ttl + max-skew by design (the database centre cannot
     * tell a namespace it never saw from one deleted while a worker held a worker id of it).
     */
    private static WorkerOptions.Builder shortLease() {
        return WorkerOptions.builder().leaseTtl(Duration.ofMillis(600)).maxSkew(Duration.ofMillis(50))
                .lossGuard(Duration.ofMillis(650));
    }

    /**
     * A manual clock at the database's clock in a namespace in use for a while (its record dated back), so a worker
     * on it need not wait for real time; a clock ahead of the centre's would be refused (DESIGN rule 13).
     */
    private ManualClock aheadOfTheFirstFloor() {
        WorkerOptions options = shortLease().namespace(ns).build();
        store.createAgedNamespace(ns, options.layout().workerCapacity(), options.layout().pinned(),
                options.leaseTtl(), options.maxSkew());
        return new ManualClock(store.centreNowMillis());
    }

    private DBIdWorker worker(WorkerOptions.Builder options) {
        return (DBIdWorker) new DBIdWorker(new JdbcSequenceManager(store.dataSource()),
                options.namespace(ns).shutdownHook(false).build()).start();
    }

    @Test
    void fourThreadsEachIssuing250000IdsGetUniqueIdsIncreasingPerThread() throws Exception {
        checkUniqueAcrossThreads(worker(shortLease()), 4, 250_000);
    }

    /**
     * A clock past {@code epoch + 2^(64 - shift)} would shift the timestamp out of the identifier and wrap it into
     * one already used; the worker must refuse instead, for single identifiers and batches alike.
     */
    @Test
    void aClockBeyondTheLayoutsLastInstantIsRefusedNotWrapped() {
        ManualClock clock = aheadOfTheFirstFloor();
        try (DBIdWorker worker = worker(shortLease().clock(clock).renewAutomatically(false))) {
            long first = worker.nextId();
            SnowflakeLayout layout = worker.layout();
            int shift = layout.workerBits() + layout.sequenceBits();
            for (long beyond : new long[] {layout.maxTimestampOffset() + 1, 1L << (64 - shift), (1L << (64 - shift)) + 5}) {
                clock.set(layout.epochMillis() + beyond);
                assertThatThrownBy(worker::nextId)
                        .isInstanceOf(TimestampExhaustedException.class)
                        .hasMessageContaining(layout.endOfLife().toString());
                assertThatThrownBy(() -> worker.nextIds(3)).isInstanceOf(TimestampExhaustedException.class);
            }
            clock.set(worker.decode(first).timestamp().toEpochMilli() + 1);
            assertThat(worker.nextId()).isGreaterThan(first);
        }
    }

    /** A clock before the epoch fits no slot: the worker refuses without moving, so no slot is worn out. */
    @Test
    void aClockBeforeTheEpochIsRefusedWithoutSwitching() {
        ManualClock clock = aheadOfTheFirstFloor();
        try (DBIdWorker worker = worker(shortLease().clock(clock).renewAutomatically(false))) {
            long first = worker.nextId();
            clock.set(worker.layout().epochMillis() - 1_000);
            assertThatThrownBy(worker::nextId)
                    .isInstanceOf(ClockMovedBackwardsException.class)
                    .hasMessageContaining("before the epoch");
            assertThat(worker.leaseSwitchCount()).isZero();
            clock.set(worker.decode(first).timestamp().toEpochMilli() + 1);
            assertThat(worker.nextId()).isGreaterThan(first);
        }
    }

    private void checkUniqueAcrossThreads(DBIdWorker worker, int threads, int perThread) throws Exception {
        try (worker) {
            ExecutorService exec = Executors.newFixedThreadPool(threads);
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(exec.submit(() -> {
                    long[] ids = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        ids[i] = worker.nextId();
                    }
                    return ids;
                }));
            }
            long[] all = new long[threads * perThread];
            int k = 0;
            for (Future<long[]> f : futures) {
                long[] ids = f.get(2, TimeUnit.MINUTES);
                for (int i = 1; i < ids.length; i++) {
                    assertThat(ids[i]).isGreaterThan(ids[i - 1]);
                }
                System.arraycopy(ids, 0, all, k, ids.length);
                k += ids.length;
            }
            exec.shutdown();
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                assertThat(all[i]).as("duplicate id").isNotEqualTo(all[i - 1]);
            }
            assertThat(all[0]).isPositive();
        }
    }

    @Test
    void batchesAreUniqueIncreasingAndCanSpanManyMilliseconds() {
        try (DBIdWorker worker = worker(shortLease())) {
            long[] first = worker.nextIds(10_000);
            long[] second = worker.nextIds(3);
            assertThat(first).hasSize(10_000).doesNotHaveDuplicates();
            for (int i = 1; i < first.length; i++) {
                assertThat(first[i]).isGreaterThan(first[i - 1]);
            }
            assertThat(second[0]).isGreaterThan(first[first.length - 1]);
            assertThatThrownBy(() -> worker.nextIds(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("count");
        }
    }

    @Test
    void decodeRoundTripsThroughTheLayout() {
        SnowflakeLayout layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 39, 8, 16);
        try (DBIdWorker worker = worker(shortLease().layout(layout))) {
            long before = System.currentTimeMillis();
            long id = worker.nextId();
            long after = System.currentTimeMillis();
            DecodedId d = worker.decode(id);
            assertThat(d.workerId()).isEqualTo(worker.currentLease().workerId());
            assertThat(d.timestamp().toEpochMilli()).isBetween(before - 10, after);
            assertThat(layout.compose(d.timestamp().toEpochMilli(), d.workerId(), d.sequence())).isEqualTo(id);
        }
    }

    @Test
    void closedWorkerRefusesAndReturnsItsSlot() {
        DBIdWorker worker = worker(shortLease().leaseTtl(Duration.ofSeconds(2))
                .lossGuard(Duration.ofMillis(2_050)));
        int slot = worker.currentLease().workerId();
        worker.nextId();
        worker.close();
        assertThat(store.storedOwner(ns, slot)).isNull();
        assertThatThrownBy(worker::nextId).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
