package io.github.idworker.lease.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcSchema;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 *       slot count. A row is claimed with one conditional {@code UPDATE … WHERE ns = ? AND slot_id = ? AND
 *       high_water = ? AND (owner_token IS NULL OR expires_at < now)}; one row updated means it is ours and the
 *       high-water it matched is the floor. A fresh id is claimed in one transaction: {@code UPDATE <table>_ns
 *       SET slots_created = slots_created + 1 WHERE ns = ? AND slots_created < slotCount} (the row lock queues
 *       concurrent claimers), read back {@code slots_created}, and insert the row of id {@code slots_created − 1}
 *       with floor {@code created_at + guard}: the record's creation time by the database clock plus the loss
 *       guard, since a record written after the namespace was lost whole (both tables' rows deleted) looks new,
 *       while a holder of the lost generation may still issue up to its high-water. Only the first borrows of a
 *       namespace wait for it (about the loss guard, as on Redis and ZooKeeper). Counter and row commit together, so no reader ever sees the count without the row. A
 *       duplicate key there means a row already exists at that id (written by an older idworker during a rolling
 *       upgrade, or by hand): roll back, count the id as created, and read again. Each claim stores the first
 *       high-water ({@link LeaseRequest#firstHighWater(long)}) in the same statement.</li>
 *   <li>A lost race moves on to the next candidate; no claimable row and no fresh id left:
 *       {@link WorkerIdExhaustedException}.</li>
 * </ol>
 * Renew: {@code UPDATE … SET expires_at = now + ttl, high_water = GREATEST(high_water, ?) WHERE … AND
 * owner_token = ? AND (? <= high_water OR ? <= now + ttl + max-skew)}: a requested high-water beyond the database
 * clock + ttl + max-skew (its holder's clock ahead by more than max-skew) is never stored. No row: a row still
 * owned by the holder means that refusal ({@link ClockAheadOfCentreException}), otherwise the lease is lost (taken
 * by another owner, or deleted). Return: {@code UPDATE …
 * SET owner_token = NULL, expires_at = 0, high_water = ? WHERE … AND owner_token = ?}.
 */
public class JdbcSequenceManager implements ISequenceManager {

    /** Default slot table name. */
    public static final String DEFAULT_TABLE = "idworker_worker_slot";
    /** What the namespace table's name adds to the slot table's name. */
    public static final String NAMESPACE_TABLE_SUFFIX = "_ns";
    /** The property naming the table, quoted in configuration errors. */
    public static final String TABLE_PROPERTY = "idworker.jdbc.table";
    /** The property that lets the application create the tables, quoted when they are missing. */
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.jdbc.initialize-schema";

    private static final Logger log = LoggerFactory.getLogger(JdbcSequenceManager.class);
    private static final int MAX_ROUNDS = 64;

    private final JdbcRunner jdbc;
    private final JdbcSchema schema;
    private final String table;
    private final String nsTable;

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
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        this.table = JdbcSchema.checkTableName(tableName, TABLE_PROPERTY, NAMESPACE_TABLE_SUFFIX);
        this.nsTable = tableName + NAMESPACE_TABLE_SUFFIX;
        this.jdbc = new JdbcRunner(dataSource, tableName, timeouts);
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put(table, "ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at");
        columns.put(nsTable, "ns, layout, guard_ms, slots_created, created_at");
        this.schema = new JdbcSchema("lease/jdbc", DEFAULT_TABLE, tableName, INITIALIZE_SCHEMA_PROPERTY, columns);
    }

    /** The slot table. */
    public String tableName() {
        return table;
    }

    /** The namespace table: the slot table's name with {@value #NAMESPACE_TABLE_SUFFIX} appended. */
    public String namespaceTableName() {
        return nsTable;
    }

    /** The timeouts every statement runs with. */
    public JdbcTimeouts timeouts() {
        return jdbc.timeouts();
    }

    /** The dialect of the database behind the data source (connects once to find out). */
    public JdbcDialect dialect() {
        return jdbc.dialect();
    }

    /** Whether the database is an embedded one (H2), where creating the schema at startup is the default. */
    public boolean isEmbedded() {
        return dialect() == JdbcDialect.H2;
    }

    /** The DDL of both lease tables for this database, statements ended by {@code ;}. */
    public String schemaSql() {
        return String.join(";\n\n", schema.statements(dialect())) + ";";
    }

    /** Creates the lease tables that are missing. */
    public void createSchemaIfMissing() {
        schema.create(jdbc);
    }

    /**
     * Checks that both lease tables exist and have the expected columns.
     *
     * @throws IdWorkerConfigurationException naming {@value #INITIALIZE_SCHEMA_PROPERTY} when one does not
     * @throws CenterUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        schema.verify(jdbc);
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String ns = request.namespace();
        request.refuseIfAheadOf(centreNowMillis());
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Snapshot s = read(request);
            if (s.record() == null) {
                createRecord(request, !s.rows().isEmpty());
                continue;
            }
            Record record = s.record();
            if (!record.layout().equals(request.layout())) {
                throw new LayoutMismatchException(ns, record.layout(), request.layout());
            }
            request.refuseIfBelow(record.guardMillis());
            if (request.lossGuardMillis() > record.guardMillis()) {
                raiseGuard(request);
            }
            BitSet lost = lost(s, request.slotCount());
            if (!lost.isEmpty()) {
                repair(ns, lost, Math.max(record.guardMillis(), request.lossGuardMillis()));
                continue;
            }
            List<Row> past = new ArrayList<>();
            List<Row> future = new ArrayList<>();
            for (Row row : s.rows()) {
                if (row.claimable()) {
                    (row.highWater() < request.workerNowMillis() ? past : future).add(row);
                }
            }
            boolean freshLeft = record.slotsCreated() < request.slotCount();
            if (past.isEmpty() && future.isEmpty() && !freshLeft) {
                throw new WorkerIdExhaustedException(ns, request.slotCount());
            }
            past.sort(Comparator.comparingInt(Row::slot));
            future.sort(Comparator.comparingLong(Row::highWater).thenComparingInt(Row::slot));
            WorkerLease lease = claimFirst(request, past);
            if (lease == null && freshLeft) {
                lease = claimFresh(request, freshFloor(record, request));
            }
            if (lease == null) {
                lease = claimFirst(request, future);
            }
            if (lease != null) {
                return lease;
            }
        }
        throw new IdWorkerException("Could not claim a worker id of namespace '" + ns + "' after " + MAX_ROUNDS
                + " rounds: every claim lost a race against another borrower");
    }

    /** The namespace record as read. */
    /** The namespace record as read; {@code createdMillis} by the database's clock when the record was written. */
    private record Record(String layout, long guardMillis, int slotsCreated, long createdMillis) {
    }

    /** A slot row as read; {@code claimable} by the database's clock. */
    private record Row(int slot, long highWater, boolean claimable) {
    }

    /** The namespace record ({@code null} when missing) and the slot rows below the slot count. */
    private record Snapshot(Record record, List<Row> rows) {
    }

    private Snapshot read(LeaseRequest r) {
        String recordSql = "SELECT layout, guard_ms, slots_created, created_at FROM " + nsTable + " WHERE ns = ?";
        String rowsSql = "SELECT slot_id, high_water, CASE WHEN owner_token IS NULL OR expires_at < "
                + dialect().nowMillis() + " THEN 1 ELSE 0 END FROM " + table + " WHERE ns = ?";
        return jdbc.run("read worker ids", s -> {
            Record record = null;
            try (PreparedStatement ps = s.prepare(recordSql)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        record = new Record(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getLong(4));
                    }
                }
            }
            List<Row> rows = new ArrayList<>();
            try (PreparedStatement ps = s.prepare(rowsSql)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int slot = rs.getInt(1);
                        if (slot >= 0 && slot < r.slotCount()) {
                            rows.add(new Row(slot, rs.getLong(2), rs.getInt(3) == 1));
                        }
                    }
                }
            }
            return new Snapshot(record, rows);
        });
    }

    private void createRecord(LeaseRequest r, boolean rowsSurvive) {
        int slotsCreated = rowsSurvive ? r.slotCount() : 0;
        String sql = "INSERT INTO " + nsTable + " (ns, layout, guard_ms, slots_created, created_at) VALUES (?, ?, ?, ?, "
                + dialect().nowMillis() + ")";
        boolean created = insert("create the record of namespace '" + r.namespace() + "'", sql, ps -> {
            ps.setString(1, r.namespace());
            ps.setString(2, r.layout());
            ps.setLong(3, r.lossGuardMillis());
            ps.setInt(4, slotsCreated);
        });
        if (created && rowsSurvive) {
            log.warn("Namespace '{}' had worker-id rows in table {} but no record in {} (deleted, or written by an "
                    + "idworker without namespace records): pinned layout [{}] and treating every worker id without a "
                    + "row as lost", r.namespace(), table, nsTable, r.layout());
        }
    }

    private void raiseGuard(LeaseRequest r) {
        String sql = "UPDATE " + nsTable + " SET guard_ms = GREATEST(guard_ms, ?) WHERE ns = ?";
        jdbc.run("raise the loss guard of namespace '" + r.namespace() + "'", s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setLong(1, r.lossGuardMillis());
                ps.setString(2, r.namespace());
                return ps.executeUpdate();
            }
        });
    }

    private static BitSet lost(Snapshot s, int slotCount) {
        BitSet lost = new BitSet();
        lost.set(0, Math.min(s.record().slotsCreated(), slotCount));
        for (Row row : s.rows()) {
            lost.clear(row.slot());
        }
        return lost;
    }

    /** Recreates lost rows free, with a floor above anything their last holders can have issued. */
    private void repair(String ns, BitSet lost, long guardMillis) {
        long floor = centreNowMillis() + guardMillis;
        String sql = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water) VALUES (?, ?, NULL, 0, ?)";
        BitSet repaired = new BitSet();
        for (int slot = lost.nextSetBit(0); slot >= 0; slot = lost.nextSetBit(slot + 1)) {
            int id = slot;
            if (insert("recreate lost worker id " + id + " of namespace '" + ns + "'", sql, ps -> {
                ps.setString(1, ns);
                ps.setInt(2, id);
                ps.setLong(3, floor);
            })) {
                repaired.set(id);
            }
        }
        if (!repaired.isEmpty()) {
            log.warn("Worker ids {} of namespace '{}' had no row in table {} though they were used before (deleted, or "
                    + "lost with the database): recreated them free with high-water {} (centre clock + {} ms of ttl "
                    + "and max-skew), above anything their last holders can have issued", repaired, ns, table, floor,
                    guardMillis);
        }
    }

    private long centreNowMillis() {
        String sql = "SELECT " + dialect().nowMillis();
        return jdbc.run("read the database clock", s -> {
            try (PreparedStatement ps = s.prepare(sql); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private WorkerLease claimFirst(LeaseRequest r, List<Row> rows) {
        for (Row row : rows) {
            WorkerLease lease = claimRow(r, row);
            if (lease != null) {
                return lease;
            }
        }
        return null;
    }

    private WorkerLease claimRow(LeaseRequest r, Row row) {
        long highWater = r.firstHighWater(row.highWater());
        String now = dialect().nowMillis();
        String sql = "UPDATE " + table + " SET owner_token = ?, expires_at = " + now + " + ?, high_water = ?,"
                + " host_name = ?, pid = ?, started_at = ? WHERE ns = ? AND slot_id = ? AND high_water = ?"
                + " AND (owner_token IS NULL OR expires_at < " + now + ")";
        int updated = jdbc.run("claim worker id " + row.slot(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setString(1, r.owner());
                ps.setLong(2, r.ttl().toMillis());
                ps.setLong(3, highWater);
                ps.setString(4, truncate(r.host(), 255));
                ps.setLong(5, r.pid());
                ps.setLong(6, r.workerNowMillis());
                ps.setString(7, r.namespace());
                ps.setInt(8, row.slot());
                ps.setLong(9, row.highWater());
                return ps.executeUpdate();
            }
        });
        return updated == 1 ? WorkerLease.of(r, row.slot(), row.highWater(), highWater, "") : null;
    }

    /** What the transaction claiming a fresh slot id found. */
    private record Fresh(int slot, boolean claimed) {
        static final Fresh NONE_LEFT = new Fresh(-1, false);
    }

    /**
     * The floor of a fresh slot id: the record may have been written after the namespace was lost whole while a
     * worker held a slot, so a fresh id starts above anything such a holder can have stored: its renewals stored
     * at most its clock + ttl, within max-skew of the database clock before this record was written. (The same
     * bound, by the centre's clock in whole milliseconds, as every loss floor of every centre.)
     */
    private static long freshFloor(Record record, LeaseRequest r) {
        return record.createdMillis() + Math.max(record.guardMillis(), r.lossGuardMillis());
    }

    private WorkerLease claimFresh(LeaseRequest r, long floor) {
        long highWater = r.firstHighWater(floor);
        String count = "UPDATE " + nsTable + " SET slots_created = slots_created + 1 WHERE ns = ? AND slots_created < ?";
        String readCount = "SELECT slots_created FROM " + nsTable + " WHERE ns = ?";
        String insert = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water, host_name, pid,"
                + " started_at) VALUES (?, ?, ?, " + dialect().nowMillis() + " + ?, ?, ?, ?, ?)";
        Fresh fresh = jdbc.inTransaction("claim a new worker id", s -> {
            try (PreparedStatement ps = s.prepare(count)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, r.slotCount());
                if (ps.executeUpdate() != 1) {
                    return Fresh.NONE_LEFT;
                }
            }
            int slot;
            try (PreparedStatement ps = s.prepare(readCount)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    slot = rs.getInt(1) - 1;
                }
            }
            try (PreparedStatement ps = s.prepare(insert)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, slot);
                ps.setString(3, r.owner());
                ps.setLong(4, r.ttl().toMillis());
                ps.setLong(5, highWater);
                ps.setString(6, truncate(r.host(), 255));
                ps.setLong(7, r.pid());
                ps.setLong(8, r.workerNowMillis());
                ps.executeUpdate();
                return new Fresh(slot, true);
            } catch (SQLException e) {
                if (!JdbcRunner.isDuplicateKey(e)) {
                    throw e;
                }
                s.rollback();
                return new Fresh(slot, false);
            }
        });
        if (fresh.claimed()) {
            return WorkerLease.of(r, fresh.slot(), floor, highWater, "");
        }
        if (fresh.slot() >= 0) {
            countExistingRow(r.namespace(), fresh.slot());
        }
        return null;
    }

    /** Counts slot id {@code slot}, whose row exists already, as created, so fresh claims move past it. */
    private void countExistingRow(String ns, int slot) {
        String sql = "UPDATE " + nsTable + " SET slots_created = ? WHERE ns = ? AND slots_created = ?";
        jdbc.run("count worker id " + slot + " of namespace '" + ns + "'", s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setInt(1, slot + 1);
                ps.setString(2, ns);
                ps.setInt(3, slot);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String now = dialect().nowMillis();
        String sql = "UPDATE " + table + " SET expires_at = " + now + " + ?,"
                + " high_water = GREATEST(high_water, ?) WHERE ns = ? AND slot_id = ? AND owner_token = ?"
                + " AND (? <= high_water OR ? <= " + now + " + ?)";
        int updated = jdbc.run("renew worker id " + lease.workerId(), s -> {
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
                    + "' is no longer owned by this worker in table " + table);
        }
        return lease.withHighWater(Math.max(highWaterMillis, lease.highWaterMillis()));
    }

    /**
     * After a renewal updated no row: when the row still names the holder, the only condition that failed is the
     * clock bound, so the holder's clock runs ahead; throws {@link ClockAheadOfCentreException}.
     */
    private void refuseIfStillOwned(WorkerLease lease, long highWaterMillis) {
        String sql = "SELECT high_water, " + dialect().nowMillis() + " FROM " + table
                + " WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        long[] found = jdbc.run("read worker id " + lease.workerId(), s -> {
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
        String sql = "UPDATE " + table + " SET owner_token = NULL, expires_at = 0, high_water = ?"
                + " WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        jdbc.run("return worker id " + lease.workerId(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setLong(1, lastIssuedMillis);
                ps.setString(2, lease.namespace());
                ps.setInt(3, lease.workerId());
                ps.setString(4, lease.owner());
                return ps.executeUpdate();
            }
        });
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Runs one {@code INSERT} on its own; {@code false} when a row with its key exists already. */
    private boolean insert(String what, String sql, Binder binder) {
        return jdbc.run(what, s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                binder.bind(ps);
                ps.executeUpdate();
                return Boolean.TRUE;
            } catch (SQLException e) {
                if (!JdbcRunner.isDuplicateKey(e)) {
                    throw e;
                }
                s.rollback();
                return Boolean.FALSE;
            }
        });
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    @Override
    public String toString() {
        return "JdbcSequenceManager[table=" + table + ", " + nsTable + "]";
    }
}
