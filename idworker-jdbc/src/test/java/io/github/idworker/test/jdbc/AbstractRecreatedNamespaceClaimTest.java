package io.github.idworker.test.jdbc;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A borrower paused between the round that read the namespace record and its claim's transaction, while the
 * namespace is lost (deleted) and its record written again: the claim must take its floor from the record as it
 * stands in its transaction, never from the one its round read. With the old record's {@code created_at} (ten
 * minutes back) a fresh slot id would get a floor far below the high-water of a holder of the lost generation,
 * and both would issue the same IDs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractRecreatedNamespaceClaimTest {

    private static final Duration TTL = Duration.ofSeconds(15);
    private static final Duration SKEW = Duration.ofSeconds(1);
    private static final long GUARD = TTL.toMillis() + SKEW.toMillis();
    /** Two worker bits: four slot ids, so a few borrowers fill the namespace. */
    private static final String LAYOUT = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned();
    private static final int SLOTS = 4;

    private final Database database;
    private final String ns = "r-" + UUID.randomUUID().toString().substring(0, 13);
    private JdbcSequenceManagerStore store;

    protected AbstractRecreatedNamespaceClaimTest(Database database) {
        this.database = database;
    }

    @BeforeEach
    void openStore() {
        store = new JdbcSequenceManagerStore(database.url(), database.user(), "");
        store.createAgedNamespace(ns, SLOTS, LAYOUT, TTL, SKEW);
    }

    @AfterEach
    void cleanUp() {
        store.deleteNamespace(ns);
        store.close();
    }

    private LeaseRequest request(Duration ttl) {
        return new LeaseRequest(ns, SLOTS, UUID.randomUUID().toString(), ttl, System.currentTimeMillis(), SKEW,
                "test-host", 42, LAYOUT);
    }

    private LeaseRequest request() {
        return request(TTL);
    }

    @Test
    void aFreshClaimAcrossARecreatedNamespaceStartsAboveTheLostGenerationsHolders() throws Exception {
        ISequenceManager manager = store.newManager();
        manager.borrow(request());
        WorkerLease holder = manager.borrow(request());
        try (Paused paused = new Paused(sql -> sql.contains("slots_created = slots_created + 1"), request())) {
            // lost whole; the next borrower writes the record again and counts slot id 0 in it
            store.deleteNamespace(ns);
            assertThat(store.newManager().borrow(request()).workerId()).isZero();
            assertClaimedAbove(paused, holder);
        }
    }

    @Test
    void aPreferredFreshClaimAcrossARecreatedNamespaceStartsAboveTheLostGenerationsHolders() throws Exception {
        ISequenceManager manager = store.newManager();
        manager.borrow(request());
        manager.borrow(request());
        try (Paused paused = new Paused(sql -> sql.contains("SET slots_created = ? WHERE"),
                request().withPreferredSlot(2))) {
            // the old generation hands slot id 2 out after the paused round read the count 2
            WorkerLease holder = manager.borrow(request());
            assertThat(holder.workerId()).isEqualTo(2);
            store.deleteNamespace(ns);
            for (int i = 0; i < 2; i++) {
                store.newManager().borrow(request());
            }
            assertClaimedAbove(paused, holder);
        }
    }

    @Test
    void aRowClaimAcrossARecreatedRecordTakesTheFloorOfTheRecordAsItStands() throws Exception {
        ISequenceManager manager = store.newManager();
        for (int i = 0; i < SLOTS; i++) {
            manager.borrow(request());
        }
        // slot 0's row lost: the paused borrower's first round repairs it (never claimed, floor now + guard) and
        // its next round claims it, as the only claimable row
        store.deleteSlotRecord(ns, 0);
        Duration longTtl = TTL.multipliedBy(4);
        LeaseRequest longer = request(longTtl);
        try (Paused paused = new Paused(sql -> sql.contains("FOR UPDATE") || sql.contains("SET owner_token = ?,"),
                longer)) {
            // the repair raised the guard to the paused borrower's own, so its floor and the recreated record's
            // fresh floor differ by the time between them: make that measurable
            Thread.sleep(100);
            // only the record is lost and written again, as a borrower's first round writes it (rows survive)
            store.deleteNamespaceRecord(ns);
            store.writeNamespaceRecord(ns, LAYOUT, GUARD, SLOTS);
            long createdAt = store.namespaceCreatedAt(ns);
            WorkerLease claimed = paused.resume();
            assertThat(claimed.workerId()).isZero();
            // a row never claimed, with a floor written since the record exists: at least the record's
            // created_at + the claimer's guard, by the record as it stands at the claim
            assertThat(claimed.floorMillis())
                    .as("floor of slot 0 claimed across the recreated record (created_at %d, claimer's guard %d)",
                            createdAt, longer.lossGuardMillis())
                    .isGreaterThanOrEqualTo(createdAt + longer.lossGuardMillis());
        }
    }

    /** The paused borrower, resumed, claims the worker id {@code holder} still holds, above its high-water. */
    private static void assertClaimedAbove(Paused paused, WorkerLease holder) throws Exception {
        WorkerLease claimed = paused.resume();
        assertThat(claimed.workerId()).isEqualTo(holder.workerId());
        assertThat(claimed.floorMillis())
                .as("floor of worker id %d claimed across the recreated namespace vs the high-water of its "
                        + "holder of the lost generation", claimed.workerId())
                .isGreaterThan(holder.highWaterMillis());
    }

    /**
     * A borrow on its own thread through a data source that stops it just before it prepares the first statement
     * {@code pauseAt} matches, until {@link #resume()}.
     */
    private final class Paused implements AutoCloseable {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);
        private final CompletableFuture<WorkerLease> lease;

        Paused(Predicate<String> pauseAt, LeaseRequest request) throws InterruptedException {
            DataSource real = store.dataSource();
            DataSource pausing = proxy(DataSource.class, real, (method, args, result) -> {
                if (!method.getName().equals("getConnection")) {
                    return result;
                }
                return proxy(Connection.class, (Connection) result, (m, a, r) -> r, (m, a) -> {
                    if (m.getName().equals("prepareStatement") && pauseAt.test((String) a[0])
                            && reached.getCount() > 0) {
                        reached.countDown();
                        go.await(60, TimeUnit.SECONDS);
                    }
                });
            }, (m, a) -> { });
            ISequenceManager manager = new JdbcSequenceManager(pausing, JdbcSequenceManager.DEFAULT_TABLE);
            lease = CompletableFuture.supplyAsync(() -> manager.borrow(request));
            assertThat(reached.await(60, TimeUnit.SECONDS)).as("the borrower reached its claim").isTrue();
        }

        WorkerLease resume() throws Exception {
            go.countDown();
            return lease.get(60, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            go.countDown();
        }
    }

    /** What a proxy does with a call's result. */
    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result) throws Throwable;
    }

    /** What a proxy does before a call. */
    @FunctionalInterface
    private interface Before {
        void run(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, After after, Before before) {
        return type.cast(Proxy.newProxyInstance(AbstractRecreatedNamespaceClaimTest.class.getClassLoader(),
                new Class<?>[] {type}, (p, method, args) -> {
                    before.run(method, args);
                    try {
                        return after.apply(method, args, method.invoke(target, args));
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }
}
