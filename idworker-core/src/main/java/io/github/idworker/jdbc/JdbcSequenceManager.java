package io.github.idworker.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Leases worker ids from one table of a relational database (H2, MySQL, MariaDB, PostgreSQL) over a plain
 * {@link DataSource}, keeping every rule of {@link ISequenceManager}. Every statement runs in its own
 * committed transaction, apart from any transaction of the caller, and judges expiry by the database's clock.
 *
 * <p>Borrow:
 * <ol>
 *   <li>Read the namespace's rows: slot, stored high-water, and whether the database clock finds it claimable
 *       (no owner, or {@code expires_at} passed).</li>
 *   <li>Order candidates: claimable rows whose high-water is before the borrower's clock, then slot ids that
 *       have no row yet, then the other claimable rows by ascending high-water.</li>
 *   <li>Claim a row with one conditional {@code UPDATE … WHERE ns = ? AND slot_id = ? AND high_water = ? AND
 *       (owner_token IS NULL OR expires_at < now)}; one row updated means it is ours, and the high-water it
 *       matched is the floor. Claim an unused slot id with an {@code INSERT}; a primary-key violation means
 *       another borrower was first. The claim stores the first high-water in the same statement.</li>
 *   <li>A lost race moves on to the next candidate; a round without candidates and without unused ids throws
 *       {@link WorkerIdExhaustedException}.</li>
 * </ol>
 * Renew: {@code UPDATE … SET expires_at = now + ttl, high_water = GREATEST(high_water, ?) WHERE … AND
 * owner_token = ?}; no row means the lease is lost. Return: {@code UPDATE … SET owner_token = NULL, expires_at
 * = 0, high_water = ? WHERE … AND owner_token = ?}.
 */
public class JdbcSequenceManager implements ISequenceManager {

    /** Default table name. */
    public static final String DEFAULT_TABLE = "idworker_worker_slot";
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
    private static final int MAX_ROUNDS = 64;

    private final JdbcRunner jdbc;
    private final String table;
    private volatile JdbcDialect dialect;

    public JdbcSequenceManager(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE);
    }

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param tableName the lease table, optionally schema-qualified
     * @throws IdWorkerConfigurationException when the table name is not a plain SQL identifier
     */
    public JdbcSequenceManager(DataSource dataSource, String tableName) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
            throw new IdWorkerConfigurationException("idworker.jdbc.table",
                    "must be an SQL identifier of letters, digits and '_', optionally schema-qualified, was '" + tableName + "'");
        }
        this.jdbc = new JdbcRunner(dataSource, tableName);
        this.table = tableName;
    }

    public String tableName() {
        return table;
    }

    /** The dialect of the database behind the data source (connects once to find out). */
    public JdbcDialect dialect() {
        JdbcDialect d = dialect;
        if (d == null) {
            d = jdbc.run("detect the database", c -> JdbcDialect.fromProductName(c.getMetaData().getDatabaseProductName()));
            dialect = d;
        }
        return d;
    }

    /** Whether the database is an embedded one (H2), where creating the schema at startup is the default. */
    public boolean isEmbedded() {
        return dialect() == JdbcDialect.H2;
    }

    /** The DDL of the lease table for this database. */
    public String schemaSql() {
        String resource = dialect().schemaResource();
        try (InputStream in = JdbcSequenceManager.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", table);
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString().trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    /** Creates the lease table unless it exists. */
    public void createSchemaIfMissing() {
        String ddl = schemaSql();
        jdbc.run("create table " + table, c -> {
            try (Statement st = c.createStatement()) {
                st.execute(ddl);
            }
            return null;
        });
    }

    /**
     * Checks that the lease table exists and has the expected columns.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.jdbc.initialize-schema} when it does not
     * @throws CenterUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        Connection c = jdbc.connect("check table " + table);
        try (c; Statement st = c.createStatement()) {
            st.executeQuery("SELECT ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at FROM "
                    + table + " WHERE 1 = 0").close();
        } catch (SQLException e) {
            throw new IdWorkerConfigurationException("idworker.jdbc.initialize-schema", "table '" + table
                    + "' is missing or lacks idworker's columns in " + jdbc.location() + " (" + e.getMessage().trim()
                    + "). Create it with the DDL in " + dialect().schemaResource()
                    + " (see the README) or set idworker.jdbc.initialize-schema=always", e);
        }
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String ns = request.namespace();
        for (int round = 0; round < MAX_ROUNDS; round++) {
            List<Candidate> candidates = candidates(request);
            if (candidates.isEmpty()) {
                throw new WorkerIdExhaustedException(ns, request.slotCount());
            }
            for (Candidate c : candidates) {
                WorkerLease lease = c.existing() ? claimRow(request, c) : claimNewSlot(request, c.slot());
                if (lease != null) {
                    return lease;
                }
            }
        }
        throw new IdWorkerException("Could not claim a worker id of namespace '" + ns + "' after " + MAX_ROUNDS
                + " rounds: every claim lost a race against another borrower");
    }

    private record Candidate(int slot, long highWater, boolean existing) {
    }

    private List<Candidate> candidates(LeaseRequest request) {
        String sql = "SELECT slot_id, high_water, CASE WHEN owner_token IS NULL OR expires_at < "
                + dialect().nowMillis() + " THEN 1 ELSE 0 END FROM " + table + " WHERE ns = ?";
        return jdbc.run("read worker ids", c -> {
            List<Candidate> past = new ArrayList<>();
            List<Candidate> future = new ArrayList<>();
            BitSet present = new BitSet(request.slotCount());
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, request.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int slot = rs.getInt(1);
                        if (slot < 0 || slot >= request.slotCount()) {
                            continue;
                        }
                        present.set(slot);
                        if (rs.getInt(3) == 1) {
                            Candidate cand = new Candidate(slot, rs.getLong(2), true);
                            (cand.highWater() < request.workerNowMillis() ? past : future).add(cand);
                        }
                    }
                }
            }
            List<Candidate> all = new ArrayList<>(past);
            all.sort(Comparator.comparingInt(Candidate::slot));
            for (int slot = present.nextClearBit(0); slot < request.slotCount(); slot = present.nextClearBit(slot + 1)) {
                all.add(new Candidate(slot, 0, false));
            }
            future.sort(Comparator.comparingLong(Candidate::highWater).thenComparingInt(Candidate::slot));
            all.addAll(future);
            return all;
        });
    }

    private WorkerLease claimRow(LeaseRequest r, Candidate c) {
        long highWater = r.firstHighWater(c.highWater());
        String now = dialect().nowMillis();
        String sql = "UPDATE " + table + " SET owner_token = ?, expires_at = " + now + " + ?, high_water = ?,"
                + " host_name = ?, pid = ?, started_at = ? WHERE ns = ? AND slot_id = ? AND high_water = ?"
                + " AND (owner_token IS NULL OR expires_at < " + now + ")";
        int updated = jdbc.run("claim a worker id", conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                ps.setString(1, r.owner());
                ps.setLong(2, r.ttl().toMillis());
                ps.setLong(3, highWater);
                ps.setString(4, truncate(r.host(), 255));
                ps.setLong(5, r.pid());
                ps.setLong(6, r.workerNowMillis());
                ps.setString(7, r.namespace());
                ps.setInt(8, c.slot());
                ps.setLong(9, c.highWater());
                return ps.executeUpdate();
            }
        });
        return updated == 1 ? WorkerLease.of(r, c.slot(), c.highWater(), highWater, "") : null;
    }

    private WorkerLease claimNewSlot(LeaseRequest r, int slot) {
        long floor = 0;
        long highWater = r.firstHighWater(floor);
        String sql = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at)"
                + " VALUES (?, ?, ?, " + dialect().nowMillis() + " + ?, ?, ?, ?, ?)";
        Boolean inserted = jdbc.run("claim a new worker id", conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, slot);
                ps.setString(3, r.owner());
                ps.setLong(4, r.ttl().toMillis());
                ps.setLong(5, highWater);
                ps.setString(6, truncate(r.host(), 255));
                ps.setLong(7, r.pid());
                ps.setLong(8, r.workerNowMillis());
                ps.executeUpdate();
                return Boolean.TRUE;
            } catch (SQLException e) {
                if (JdbcRunner.isDuplicateKey(e)) {
                    return Boolean.FALSE;
                }
                throw e;
            }
        });
        return inserted ? WorkerLease.of(r, slot, floor, highWater, "") : null;
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String sql = "UPDATE " + table + " SET expires_at = " + dialect().nowMillis() + " + ?,"
                + " high_water = GREATEST(high_water, ?) WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        int updated = jdbc.run("renew worker id " + lease.workerId(), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, lease.ttl().toMillis());
                ps.setLong(2, highWaterMillis);
                ps.setString(3, lease.namespace());
                ps.setInt(4, lease.workerId());
                ps.setString(5, lease.owner());
                return ps.executeUpdate();
            }
        });
        if (updated != 1) {
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                    + "' is no longer owned by this worker in table " + table);
        }
        return lease.withHighWater(Math.max(highWaterMillis, lease.highWaterMillis()));
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String sql = "UPDATE " + table + " SET owner_token = NULL, expires_at = 0, high_water = ?"
                + " WHERE ns = ? AND slot_id = ? AND owner_token = ?";
        jdbc.run("return worker id " + lease.workerId(), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, lastIssuedMillis);
                ps.setString(2, lease.namespace());
                ps.setInt(3, lease.workerId());
                ps.setString(4, lease.owner());
                return ps.executeUpdate();
            }
        });
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
