package io.github.idworker.sample;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.LossGuardLoweredException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link MyBatisSequenceManager} keeps in the namespace record and what it does when one slot row is lost,
 * the layout differs or a row is locked, over a real H2 database (and MariaDB and PostgreSQL in
 * {@link MyBatisSequenceManagerRealDatabasesTest}): the rules the contract kit checks for every centre, plus the
 * sample's own upgrade and guard cases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MyBatisSequenceManagerRecordsTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);
    private static final String LAYOUT = layout(2).pinned();

    private MyBatisStore store;
    private JdbcClient jdbc;
    private final String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);

    /** The database under test: a fresh in-memory H2 here, the real ones in the real-services subclasses. */
    MyBatisStore createStore() throws Exception {
        return MyBatisStore.h2();
    }

    @BeforeEach
    void open() throws Exception {
        store = createStore();
        jdbc = JdbcClient.create(store.dataSource());
    }

    @AfterEach
    void close() {
        store.deleteNamespace(ns);
        store.close();
    }

    private static SnowflakeLayout layout(int workerBits) {
        return SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, workerBits, 12);
    }

    private static LeaseRequest request(String ns, int slotCount, Duration ttl, String layout) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), ttl, System.currentTimeMillis(), SKEW,
                "test-host", 42, layout);
    }

    private LeaseRequest request(int slotCount) {
        return request(ns, slotCount, TTL, layout(Integer.numberOfTrailingZeros(slotCount)).pinned());
    }

    private long guardMs() {
        return jdbc.sql("SELECT guard_ms FROM idworker_worker_slot_ns WHERE ns = ?").param(ns)
                .query(Long.class).single();
    }

    @Test
    void aDeletedRowOfTheOnlySlotComesBackAboveNowPlusTtlAndSkewAndItsHolderLosesTheLease() {
        ISequenceManager a = store.newManager();
        WorkerLease leaseOfA = a.borrow(request(1));
        store.deleteSlotRecord(ns, 0);

        long centreNow = System.currentTimeMillis();
        WorkerLease next = store.newManager().borrow(request(1));

        assertThat(next.workerId()).isZero();
        assertThat(next.floorMillis()).isGreaterThanOrEqualTo(centreNow + TTL.toMillis() + SKEW.toMillis())
                .isGreaterThan(leaseOfA.highWaterMillis());
        assertThatThrownBy(() -> a.renew(leaseOfA, leaseOfA.highWaterMillis() + 1))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.storedOwner(ns, 0)).isEqualTo(next.owner());
    }

    @Test
    void aDeletedRowOfAReturnedSlotIsRestoredWhileTheOtherRowsAndNeverUsedIdsAreUntouched() {
        ISequenceManager m = store.newManager();
        WorkerLease zero = m.borrow(request(4));
        WorkerLease one = m.borrow(request(4));
        assertThat(zero.workerId()).isZero();
        assertThat(one.workerId()).isOne();
        m.giveBack(zero, zero.highWaterMillis());
        store.deleteSlotRecord(ns, 0);

        long centreNow = System.currentTimeMillis();
        // ids never used come first: their floor is the namespace's fresh floor (its record's creation + guard),
        // the one every fresh id of this record had, not a lost row's (the centre's clock now + guard)
        WorkerLease two = store.newManager().borrow(request(4));
        WorkerLease three = store.newManager().borrow(request(4));
        assertThat(two.workerId()).isEqualTo(2);
        assertThat(two.floorMillis()).isEqualTo(zero.floorMillis()).isEqualTo(one.floorMillis());
        assertThat(three.workerId()).isEqualTo(3);
        assertThat(store.storedOwner(ns, 1)).isEqualTo(one.owner());
        assertThat(store.storedHighWater(ns, 1)).isEqualTo(one.highWaterMillis());
        // the lost row was restored free, above anything its last holder may have issued
        assertThat(store.storedOwner(ns, 0)).isNull();
        assertThat(store.storedHighWater(ns, 0)).isGreaterThanOrEqualTo(centreNow + TTL.toMillis() + SKEW.toMillis());

        WorkerLease restored = store.newManager().borrow(request(4));
        assertThat(restored.workerId()).isZero();
        assertThat(restored.floorMillis()).isGreaterThanOrEqualTo(centreNow + TTL.toMillis() + SKEW.toMillis());
    }

    @Test
    void aBorrowWithAnotherLayoutIsRefusedNamingBothAndClaimsNothing() {
        ISequenceManager m = store.newManager();
        m.borrow(request(ns, 4, TTL, LAYOUT));
        String movedEpoch = SnowflakeLayout.of(Instant.parse("2025-01-02T00:00:00Z"), 41, 2, 12).pinned();

        assertThatThrownBy(() -> m.borrow(request(ns, 4, TTL, movedEpoch)))
                .isInstanceOf(LayoutMismatchException.class)
                .hasMessageContaining(ns).hasMessageContaining(LAYOUT).hasMessageContaining(movedEpoch)
                .satisfies(e -> assertThat(((LayoutMismatchException) e).getPinnedLayout()).isEqualTo(LAYOUT));
        assertThat(store.storedOwner(ns, 1)).isNull();
        assertThat(store.storedHighWater(ns, 1)).isEqualTo(-1);

        assertThat(m.borrow(request(ns, 4, TTL, LAYOUT)).workerId()).isOne();
    }

    /**
     * The namespace keeps the largest loss guard of its borrowers: a borrower with a smaller one is refused, one
     * with a shorter ttl but the namespace's guard is served, and a lost row's floor uses the kept guard.
     */
    @Test
    void theGuardIsTheLargestTtlPlusSkewAnyBorrowerAskedForAndALostRowUsesIt() {
        store.newManager().borrow(request(ns, 4, TTL, LAYOUT));
        assertThat(guardMs()).isEqualTo(TTL.toMillis() + SKEW.toMillis());
        Duration longGuard = Duration.ofMinutes(2).plus(SKEW);
        WorkerLease longLease = store.newManager().borrow(request(ns, 4, Duration.ofMinutes(2), LAYOUT));
        assertThat(guardMs()).isEqualTo(longGuard.toMillis());
        assertThatThrownBy(() -> store.newManager().borrow(request(ns, 4, TTL, LAYOUT)))
                .isInstanceOf(LossGuardLoweredException.class).hasMessageContaining("idworker.lease.loss-guard");
        store.newManager().borrow(new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL,
                System.currentTimeMillis(), SKEW, "test-host", 42, LAYOUT, longGuard));
        assertThat(guardMs()).isEqualTo(longGuard.toMillis());

        store.deleteSlotRecord(ns, longLease.workerId());
        long centreNow = System.currentTimeMillis();
        store.newManager().borrow(new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL,
                System.currentTimeMillis(), SKEW, "test-host", 42, LAYOUT, longGuard));
        assertThat(store.storedHighWater(ns, longLease.workerId()))
                .isGreaterThanOrEqualTo(centreNow + longGuard.toMillis());
    }

    @Test
    void rowsWrittenBeforeTheNamespaceRecordExistedCountAsEverySlotIdCreated() {
        // a namespace leased before this version: slot 1 has a row, the others may have been lost
        long oldHighWater = System.currentTimeMillis() - 60_000;
        jdbc.sql("INSERT INTO idworker_worker_slot (ns, slot_id, owner_token, expires_at, high_water)"
                        + " VALUES (?, 1, NULL, 0, ?)")
                .params(ns, oldHighWater).update();
        long centreNow = System.currentTimeMillis();

        WorkerLease lease = store.newManager().borrow(request(4));

        assertThat(lease.workerId()).isOne();
        assertThat(lease.floorMillis()).isEqualTo(oldHighWater);
        for (int slot : new int[] {0, 2, 3}) {
            assertThat(store.storedOwner(ns, slot)).isNull();
            assertThat(store.storedHighWater(ns, slot))
                    .isGreaterThanOrEqualTo(centreNow + TTL.toMillis() + SKEW.toMillis());
        }
        assertThat(jdbc.sql("SELECT slots_created FROM idworker_worker_slot_ns WHERE ns = ?").param(ns)
                .query(Integer.class).single()).isEqualTo(4);
    }

    @Test
    void aRenewalOfALockedRowFailsAsUnavailableWithinTheStatementTimeout() throws Exception {
        ISequenceManager m = store.newManager();
        // a namespace in use for a while: the first high-water is the clock + ttl, which a renewal may raise by less
        // than max-skew (DESIGN rule 13); a new namespace's first high-water is already at that bound
        store.createAgedNamespace(ns, 4, layout(2).pinned(), TTL, SKEW);
        WorkerLease lease = m.borrow(request(4));
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (AutoCloseable stall = store.stall(ns, lease.workerId())) {
            Future<WorkerLease> renewal = caller.submit(() -> m.renew(lease, lease.highWaterMillis() + 200));
            // closing the stall releases a renewal that hangs, so a failure here never hangs the build. The bound is
            // the statement timeout, a second more as timeouts count whole seconds, and 3 s for a 2-core machine under
            // a full build (the statement timeout + 1 s failed there); without the timeout the renewal waits for the
            // row, up to 50 s on MariaDB and for ever on PostgreSQL (MyBatisSequenceManagerRealDatabasesTest)
            assertThat(renewal).failsWithin(Duration.ofSeconds(WorkerSlotMapper.TIMEOUT_SECONDS + 4))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(CenterUnavailableException.class)
                    .withMessageContaining("renew worker id " + lease.workerId());
        } finally {
            caller.shutdown();
        }
        assertThat(m.renew(lease, lease.highWaterMillis() + 200).highWaterMillis())
                .isEqualTo(lease.highWaterMillis() + 200);
    }

    @Test
    void concurrentBorrowersOfReturnedSlotsAllGetOneWhateverThePoolsIsolationLevel() throws Exception {
        int slots = 16;
        ISequenceManager first = store.newManager();
        List<WorkerLease> returned = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            returned.add(first.borrow(request(slots)));
        }
        long lastIssued = System.currentTimeMillis() - 60_000;
        returned.forEach(lease -> first.giveBack(lease, lastIssued));

        ExecutorService borrowers = Executors.newFixedThreadPool(slots);
        CyclicBarrier start = new CyclicBarrier(slots);
        try {
            List<Future<WorkerLease>> leases = new ArrayList<>();
            for (int i = 0; i < slots; i++) {
                ISequenceManager m = store.newManager();
                leases.add(borrowers.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return m.borrow(request(slots));
                }));
            }
            Set<Integer> taken = new HashSet<>();
            for (Future<WorkerLease> lease : leases) {
                WorkerLease l = lease.get(30, TimeUnit.SECONDS);
                assertThat(l.floorMillis()).isEqualTo(lastIssued);
                taken.add(l.workerId());
            }
            assertThat(taken).hasSize(slots);
        } finally {
            borrowers.shutdownNow();
        }
    }

    /**
     * A borrower paused just before its fresh claim's compare-and-set while the namespace is lost whole and written
     * again, and the new generation's count reaches the one it read: its floor must come from the record as it
     * stands, not from the old one (ten minutes back), which lies below the high-water of a holder of the lost
     * generation.
     */
    @Test
    void aFreshClaimAcrossARecreatedNamespaceStartsAboveTheLostGenerationsHolders() throws Exception {
        store.createAgedNamespace(ns, 4, request(4).layout(), TTL, SKEW);
        ISequenceManager manager = store.newManager();
        manager.borrow(request(4));
        manager.borrow(request(4));
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        DataSource real = store.dataSource();
        DataSource pausing = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (p, method, args) -> {
                    Object result = invoke(method, real, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                            (p2, m2, a2) -> {
                                if (m2.getName().equals("prepareStatement")
                                        && ((String) a2[0]).contains("slots_created = slots_created + 1")
                                        && reached.getCount() > 0) {
                                    reached.countDown();
                                    go.await(30, TimeUnit.SECONDS);
                                }
                                return invoke(m2, result, a2);
                            });
                });
        ISequenceManager paused = store.newManager(pausing);
        CompletableFuture<WorkerLease> claim = CompletableFuture.supplyAsync(() -> paused.borrow(request(4)));
        WorkerLease holder;
        try {
            assertThat(reached.await(30, TimeUnit.SECONDS)).isTrue();
            // the old generation hands slot id 2 out after the paused round read the count 2
            holder = manager.borrow(request(4));
            assertThat(holder.workerId()).isEqualTo(2);
            store.deleteNamespace(ns);
            for (int i = 0; i < 2; i++) {
                store.newManager().borrow(request(4));
            }
        } finally {
            go.countDown();
        }
        WorkerLease claimed = claim.get(30, TimeUnit.SECONDS);
        assertThat(claimed.workerId()).isEqualTo(2);
        assertThat(claimed.floorMillis())
                .as("floor of worker id 2 claimed across the recreated namespace vs its old holder's high-water")
                .isGreaterThan(holder.highWaterMillis());
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
