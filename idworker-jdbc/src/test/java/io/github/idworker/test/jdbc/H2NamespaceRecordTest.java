package io.github.idworker.test.jdbc;

import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LossGuardLoweredException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JDBC centre's namespace record: the pinned layout, the largest loss guard asked for, and how many slot ids
 * ever had a row, so a row that is missing below that count is known to be lost and comes back with a floor of
 * {@code centre now + ttl + max-skew} (DESIGN rules 8 and 9). H2 runs in this JVM, so its clock is ours.
 */
class H2NamespaceRecordTest {

    private static final Duration TTL = Duration.ofSeconds(15);
    private static final Duration SKEW = Duration.ofSeconds(1);
    private static final long GUARD = TTL.toMillis() + SKEW.toMillis();

    private final String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
    private JdbcSequenceManagerStore store;

    @BeforeEach
    void open() {
        store = new JdbcSequenceManagerStore("jdbc:h2:mem:namespace-record;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @AfterEach
    void close() {
        store.deleteNamespace(ns);
        store.close();
    }

    private static String layout(int workerBits) {
        return SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, workerBits, 12).pinned();
    }

    private LeaseRequest request(int workerBits, Duration ttl, long workerNow) {
        return new LeaseRequest(ns, 1 << workerBits, UUID.randomUUID().toString(), ttl, workerNow, SKEW, "test-host",
                42, layout(workerBits));
    }

    private LeaseRequest request(int workerBits) {
        return request(workerBits, TTL, System.currentTimeMillis());
    }

    @Test
    void aDeletedRowOfAReturnedSlotComesBackAboveEverythingItsHolderCanHaveIssued() {
        ISequenceManager m = store.newManager();
        WorkerLease first = m.borrow(request(0));
        m.giveBack(first, first.highWaterMillis());

        long before = System.currentTimeMillis();
        store.deleteSlotRecord(ns, 0);
        WorkerLease second = m.borrow(request(0));
        assertThat(second.workerId()).isZero();
        assertThat(second.floorMillis()).isGreaterThanOrEqualTo(before + GUARD)
                .isGreaterThan(first.highWaterMillis());
    }

    @Test
    void aDeletedRowOfAHeldSlotLosesTheLeaseAndTheSuccessorStartsAboveTheGuard() {
        ISequenceManager m = store.newManager();
        WorkerLease held = m.borrow(request(0));
        long before = System.currentTimeMillis();
        store.deleteSlotRecord(ns, 0);
        assertThatThrownBy(() -> m.renew(held, held.highWaterMillis() + 1)).isInstanceOf(LeaseLostException.class);

        WorkerLease successor = store.newManager().borrow(request(0));
        assertThat(successor.floorMillis()).isGreaterThanOrEqualTo(before + GUARD)
                .isGreaterThanOrEqualTo(held.highWaterMillis());
        assertThatThrownBy(() -> m.renew(held, held.highWaterMillis() + 1)).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void slotRowsWithoutANamespaceRecordAreAdoptedAndEveryMissingSlotIsTreatedAsLost() throws SQLException {
        // a namespace of a version without namespace records: slots 0 and 2 have rows, 1 and 3 are unknown
        long now = System.currentTimeMillis();
        insertFreeRow(0, now - 60_000);
        insertFreeRow(2, now - 30_000);

        ISequenceManager m = store.newManager();
        Map<Integer, Long> floors = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            WorkerLease lease = m.borrow(request(2));
            floors.put(lease.workerId(), lease.floorMillis());
        }
        assertThat(floors).containsEntry(0, now - 60_000).containsEntry(2, now - 30_000);
        assertThat(floors.get(1)).isGreaterThanOrEqualTo(now + GUARD);
        assertThat(floors.get(3)).isGreaterThanOrEqualTo(now + GUARD);
    }

    @Test
    void aDeletedNamespaceRecordWithSurvivingRowsCountsEverySlotWithoutARowAsLost() {
        ISequenceManager m = store.newManager();
        long now = System.currentTimeMillis();
        WorkerLease first = m.borrow(request(2));
        WorkerLease second = m.borrow(request(2));
        m.giveBack(first, now - 60_000);
        m.giveBack(second, now - 60_000);
        store.deleteNamespaceRecord(ns);

        Map<Integer, Long> floors = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            WorkerLease lease = m.borrow(request(2));
            floors.put(lease.workerId(), lease.floorMillis());
        }
        assertThat(floors).containsEntry(0, now - 60_000).containsEntry(1, now - 60_000);
        assertThat(floors.get(2)).isGreaterThanOrEqualTo(now + GUARD);
        assertThat(floors.get(3)).isGreaterThanOrEqualTo(now + GUARD);
    }

    /**
     * The namespace keeps the largest loss guard its borrowers used; a borrower with a shorter ttl but the same
     * configured guard is served, one with a smaller guard is refused (it would floor a lost row below the others'
     * high-waters), and a lost row comes back above the kept guard.
     */
    @Test
    void theLargestGuardAnyBorrowerAskedForProtectsALostRow() throws SQLException {
        ISequenceManager m = store.newManager();
        Duration shortTtl = Duration.ofSeconds(1);
        m.giveBack(m.borrow(request(0, shortTtl, System.currentTimeMillis())), System.currentTimeMillis());
        assertThat(storedGuard()).isEqualTo(shortTtl.toMillis() + SKEW.toMillis());
        m.giveBack(m.borrow(request(0, TTL, System.currentTimeMillis())), System.currentTimeMillis());
        assertThat(storedGuard()).isEqualTo(GUARD);
        assertThatThrownBy(() -> m.borrow(request(0, shortTtl, System.currentTimeMillis())))
                .isInstanceOf(LossGuardLoweredException.class).hasMessageContaining("idworker.lease.loss-guard");
        LeaseRequest shortTtlSameGuard = new LeaseRequest(ns, 1, UUID.randomUUID().toString(), shortTtl,
                System.currentTimeMillis(), SKEW, "test-host", 42, layout(0), Duration.ofMillis(GUARD));
        m.giveBack(m.borrow(shortTtlSameGuard), System.currentTimeMillis());
        assertThat(storedGuard()).isEqualTo(GUARD);

        long before = System.currentTimeMillis();
        store.deleteSlotRecord(ns, 0);
        WorkerLease lease = m.borrow(new LeaseRequest(ns, 1, UUID.randomUUID().toString(), shortTtl,
                System.currentTimeMillis(), SKEW, "test-host", 42, layout(0), Duration.ofMillis(GUARD)));
        assertThat(lease.floorMillis()).as("floor after a loss, asked by a borrower with a 1 s ttl")
                .isGreaterThanOrEqualTo(before + GUARD);
    }

    @Test
    void theLayoutOfTheFirstBorrowIsPinnedAndAnotherIsRefusedClaimingNothing() {
        ISequenceManager m = store.newManager();
        WorkerLease first = m.borrow(request(2));
        LeaseRequest moved = new LeaseRequest(ns, 4, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(),
                SKEW, "test-host", 42, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH.plusSeconds(86_400), 41, 2, 12)
                .pinned());
        assertThatThrownBy(() -> m.borrow(moved))
                .isInstanceOfSatisfying(LayoutMismatchException.class, e -> {
                    assertThat(e.getPinnedLayout()).isEqualTo(layout(2));
                    assertThat(e.getRequestedLayout()).isEqualTo(moved.layout());
                    assertThat(e.getNamespace()).isEqualTo(ns);
                })
                .hasMessageContaining(ns);
        for (int slot = 1; slot < 4; slot++) {
            assertThat(store.storedOwner(ns, slot)).as("slot %s", slot).isNull();
        }
        assertThat(store.storedOwner(ns, first.workerId())).isEqualTo(first.owner());
        assertThat(m.borrow(request(2)).workerId()).isNotEqualTo(first.workerId());
    }

    @Test
    void concurrentFirstBorrowersOfANewNamespaceNeverMistakeAFreshSlotForALostOne() throws Exception {
        int threads = 32;
        List<WorkerLease> leases = Concurrently.onThreads(threads, () -> store.newManager().borrow(request(6)));
        // a fresh slot's floor is the record's creation plus the guard, the same for every fresh slot; a slot
        // mistaken for lost would be repaired with the centre's clock at the repair plus the guard
        long freshFloor = stored("created_at") + storedGuard();
        for (WorkerLease lease : leases) {
            assertThat(lease.floorMillis()).as("floor of fresh slot %s", lease.workerId()).isEqualTo(freshFloor);
        }
        assertThat(leases).extracting(WorkerLease::workerId).doesNotHaveDuplicates().allMatch(s -> s < threads);
    }

    private long storedGuard() throws SQLException {
        return stored("guard_ms");
    }

    /** A number column of the namespace's record. */
    private long stored(String column) throws SQLException {
        try (Connection c = store.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM " + store.namespaceTable() + " WHERE ns = ?")) {
            ps.setString(1, ns);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("namespace record of %s", ns).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private void insertFreeRow(int slot, long highWater) throws SQLException {
        try (Connection c = store.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO idworker_worker_slot (ns, slot_id, owner_token,"
                     + " expires_at, high_water) VALUES (?, ?, NULL, 0, ?)")) {
            ps.setString(1, ns);
            ps.setInt(2, slot);
            ps.setLong(3, highWater);
            ps.executeUpdate();
        }
    }
}
