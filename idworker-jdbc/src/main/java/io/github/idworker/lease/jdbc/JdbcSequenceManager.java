package io.github.idworker.lease.jdbc;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcStore;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.NamespaceRecords.Record;
import io.github.idworker.lease.jdbc.NamespaceRecords.Snapshot;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.BitSet;

/**
 * Leases worker ids from two tables of a relational database (H2, MySQL, MariaDB, PostgreSQL) over a plain
 * {@link DataSource}, keeping every rule of {@link ISequenceManager}: one row per slot ({@code <table>}) and one
 * namespace record per namespace ({@code <table>_ns}) holding the pinned layout, the largest loss guard
 * ({@code idworker.lease.loss-guard}) any borrower asked for (a smaller one is refused while the record exists:
 * {@link io.github.idworker.LossGuardLoweredException}), and {@code slots_created}: slot ids below it have had a row,
 * so a missing one was lost. Every unit of work runs through {@link JdbcRunner}: apart from any transaction of
 * the caller, at READ COMMITTED, bounded by the statement and network timeouts, and expiry is judged by the
 * database's clock.
 *
 * <p>Borrow: first read the database clock; a worker clock more than {@code max-skew} ahead of it is refused with
 * {@link ClockAheadOfCentreException} before anything is written (DESIGN rule 13: the first high-water, the
 * worker's clock + ttl, then stays within the database clock + ttl + max-skew at the claim, which comes later).
 * Then, in rounds until a claim succeeds:
 * <ol>
 *   <li>Read the namespace record, then the namespace's slot rows (slot, stored high-water, and whether the
 *       database clock finds the row claimable: no owner, or {@code expires_at} passed). Reading the record first
 *       matters: a slot id counted in it has its row committed with it, so the later read sees the row unless it
 *       was really lost.</li>
 *   <li>No record: insert it with the request's layout and guard, {@code slots_created = 0} when the namespace
 *       has no slot rows, else the slot count (a deleted record, or a namespace of an idworker without
 *       namespace records: every slot id without a row counts as lost). A duplicate key means a concurrent
 *       creator won. Read again.</li>
 *   <li>A layout other than the pinned one: {@link LayoutMismatchException}; nothing is claimed. A guard larger
 *       than the stored one: {@code UPDATE … SET guard_ms = GREATEST(guard_ms, ?)}. The effective guard is the
 *       larger of both.</li>
 *   <li>Repair lost rows: every slot id below {@code slots_created} without a row is inserted free
 *       ({@code owner NULL, expires_at 0}) with {@code high_water = centre now + guard}, above anything its last
 *       holder may have issued; a duplicate key means another borrower repaired it. Logged as a warning naming
 *       the namespace, the slots and the floor. Read again.</li>
 *   <li>Claim, in this order: claimable rows whose high-water is below the borrower's clock (lowest slot first);
 *       then a fresh slot id; then the other claimable rows by ascending high-water. Only slot ids below the
 *       slot count. Every floor is taken from the namespace record as it stands inside the claim's transaction:
 *       each claim first checks, under the record's row lock, that its {@code created_at} is still the one read in
 *       step 1, and otherwise claims nothing and reads again (the namespace was lost whole and recreated meanwhile:
 *       a floor from the old record would lie below what a holder of the lost generation still issues). A row is
 *       claimed in one transaction: {@code SELECT created_at FROM <table>_ns WHERE ns = ? FOR UPDATE}, compared,
 *       then one conditional {@code UPDATE … WHERE ns = ? AND slot_id = ? AND high_water = ? AND (owner_token IS
 *       NULL OR expires_at < now)}; one row updated means it is ours and the high-water it matched is the floor; for
 *       a row never claimed ({@code started_at} empty) whose high-water is at or after {@code created_at} (an id
 *       skipped below a preferred one, or a repaired row), at least the fresh floor below with the claimer's guard.
 *       A fresh id is claimed in one transaction: {@code UPDATE <table>_ns SET slots_created = slots_created + 1
 *       WHERE ns = ? AND slots_created < slotCount AND created_at = ?} (the row lock queues concurrent claimers),
 *       read back {@code slots_created}, and insert the row of id {@code slots_created − 1} with floor
 *       {@code created_at + guard}: the record's creation time by the database clock plus the loss guard, since a
 *       record written after the namespace was lost whole (both tables' rows deleted) looks new, while a holder of
 *       the lost generation may still issue up to its high-water. Only the first borrows of a namespace wait for it
 *       (about the loss guard, as on Redis and ZooKeeper). Counter and row commit together, so no reader ever sees
 *       the count without the row. A duplicate key there means a row already exists at that id (written by an
 *       older idworker during a rolling upgrade, or by hand): roll back, count the id as created, and read again.
 *       Each claim stores the first high-water ({@link LeaseRequest#firstHighWater(long)}) in the same statement.</li>
 *   <li>A lost race moves on to the next candidate; no claimable row and no fresh id left:
 *       {@link WorkerIdExhaustedException}.</li>
 *   <li>A borrow of a preferred slot ({@link LeaseRequest#preferredSlot()}) claims that slot only, by the same
 *       statements, or throws {@link io.github.idworker.WorkerIdTakenException} while a live lease holds it; an id
 *       above the fresh ones is claimed with the ids below it inserted free with the fresh floor
 *       ({@code SlotClaims} gives the steps).</li>
 * </ol>
 * Renew: {@code UPDATE … SET expires_at = now + ttl, high_water = GREATEST(high_water, ?) WHERE … AND
 * owner_token = ? AND (? <= high_water OR ? <= now + ttl + max-skew)}: a requested high-water beyond the database
 * clock + ttl + max-skew (its holder's clock ahead by more than max-skew) is never stored. No row: a row still
 * owned by the holder means that refusal ({@link ClockAheadOfCentreException}), otherwise the lease is lost (taken
 * by another owner, or deleted). Return: {@code UPDATE …
 * SET owner_token = NULL, expires_at = 0, high_water = ? WHERE … AND owner_token = ?}.
 */
public class JdbcSequenceManager extends JdbcStore implements ISequenceManager {

    /** Default slot table name. */
    public static final String DEFAULT_TABLE = "idworker_worker_slot";
    /** What the namespace table's name adds to the slot table's name. */
    public static final String NAMESPACE_TABLE_SUFFIX = "_ns";
    /** The property naming the table, quoted in configuration errors. */
    public static final String TABLE_PROPERTY = "idworker.jdbc.table";
    /** The property that lets the application create the tables, quoted when they are missing. */
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.jdbc.initialize-schema";

    private static final int MAX_ROUNDS = 64;
    private static final Tables TABLES = Tables.of("lease/jdbc", DEFAULT_TABLE, TABLE_PROPERTY,
                    INITIALIZE_SCHEMA_PROPERTY,
                    "ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at")
            .with(NAMESPACE_TABLE_SUFFIX, "ns, layout, guard_ms, slots_created, created_at");

    private final String nsTable;
    // steps 1 to 4 of a borrow read and repair the namespace, steps 5 and 6 claim a slot; renew and return stay here
    private final NamespaceRecords namespaces;
    private final SlotClaims claims;

    public JdbcSequenceManager(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE);
    }

    /** A centre over {@code tableName} with the default timeouts ({@link JdbcTimeouts#defaults()}). */
    public JdbcSequenceManager(DataSource dataSource, String tableName) {
        this(dataSource, tableName, JdbcTimeouts.defaults());
    }

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param tableName the slot table, optionally schema-qualified; the namespace table is named after it with
     *        {@value #NAMESPACE_TABLE_SUFFIX} appended
     * @param timeouts how long any statement and any network read may take
     * @throws IdWorkerConfigurationException when the table name is not a plain SQL identifier
     */
    public JdbcSequenceManager(DataSource dataSource, String tableName, JdbcTimeouts timeouts) {
        super(dataSource, tableName, timeouts, TABLES);
        this.nsTable = tableName + NAMESPACE_TABLE_SUFFIX;
        this.namespaces = new NamespaceRecords(jdbc(), tableName, nsTable);
        this.claims = new SlotClaims(jdbc(), tableName, nsTable);
    }

    /** The namespace table: the slot table's name with {@value #NAMESPACE_TABLE_SUFFIX} appended. */
    public String namespaceTableName() {
        return nsTable;
    }

    /** Whether the database is an embedded one (H2), where creating the schema at startup is the default. */
    public boolean isEmbedded() {
        return dialect() == JdbcDialect.H2;
    }

    /** The DDL of both lease tables for this database, statements ended by {@code ;}. */
    public String schemaSql() {
        return String.join(";\n\n", schemaStatements()) + ";";
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        request.refuseIfAheadOf(namespaces.centreNowMillis());
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Snapshot s = namespaces.read(request);
            Record record = s.record();
            if (record == null) {
                namespaces.create(request, !s.rows().isEmpty());
                continue;
            }
            long guardMillis = namespaces.checkLayoutAndGuard(record, request);
            BitSet lost = s.lost(record, request.slotCount());
            if (!lost.isEmpty()) {
                namespaces.repair(request.namespace(), lost, guardMillis);
                continue;
            }
            WorkerLease lease = claims.claim(request, s, record, guardMillis);
            if (lease != null) {
                return lease;
            }
        }
        throw new IdWorkerException("Could not claim a worker id of namespace '" + request.namespace() + "' after "
                + MAX_ROUNDS + " rounds: every claim lost a race against another borrower");
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String now = dialect().nowMillis();
        String sql = "UPDATE " + tableName() + " SET expires_at = " + now + " + ?,"
                + " high_water = GREATEST(high_water, ?) WHERE ns = ? AND slot_id = ? AND owner_token = ?"
                + " AND (? <= high_water OR ? <= " + now + " + ?)";
        int updated = jdbc().run("renew worker id " + lease.workerId(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setLong(1, lease.ttl().toMillis());
                ps.setLong(2, highWaterMillis);
                ps.setString(3, lease.namespace());
                ps.setInt(4, lease.workerId());
                ps.setString(5, lease.owner());
                ps.setLong(6, highWaterMillis);
                ps.setLong(7, highWaterMillis);
                ps.setLong(8, lease.ttl().toMillis() + lease.maxSkew().toMillis());
                return ps.executeUpdate();
            }
        });
        if (updated != 1) {
            refuseIfStillOwned(lease, highWaterMillis);
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                    + "' is no longer owned by this worker in table " + tableName());
        }
        return lease.withHighWater(Math.max(highWaterMillis, lease.highWaterMillis()));
    }

    /**
     * After a renewal updated no row: when the row still names the holder, the only condition that failed is the
     * clock bound, so the holder's clock runs ahead; throws {@link ClockAheadOfCentreException}.
     */
    private void refuseIfStillOwned(WorkerLease lease, long highWaterMillis) {
        String sql = "SELECT high_water, " + dialect().nowMillis() + " FROM " + tableName()
                + " WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable,
        // which NullAway checks only in JSpecify mode
        long @Nullable [] found = jdbc().run("read worker id " + lease.workerId(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setString(1, lease.namespace());
                ps.setInt(2, lease.workerId());
                ps.setString(3, lease.owner());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : null;
                }
            }
        });
        if (found != null) {
            throw new ClockAheadOfCentreException(lease.namespace(), "renewal of worker id " + lease.workerId(),
                    lease.workerMillisOf(highWaterMillis), found[1], lease.maxSkew().toMillis());
        }
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String sql = "UPDATE " + tableName() + " SET owner_token = NULL, expires_at = 0, high_water = ?"
                + " WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        jdbc().run("return worker id " + lease.workerId(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setLong(1, lastIssuedMillis);
                ps.setString(2, lease.namespace());
                ps.setInt(3, lease.workerId());
                ps.setString(4, lease.owner());
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public String toString() {
        return "JdbcSequenceManager[table=" + tableName() + ", " + nsTable + "]";
    }
}
