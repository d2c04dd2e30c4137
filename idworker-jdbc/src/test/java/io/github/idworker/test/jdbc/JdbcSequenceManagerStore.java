package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.test.lease.SequenceManagerStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;

/** The JDBC centre over one real database, with hooks that read and edit its lease tables directly. */
public final class JdbcSequenceManagerStore implements SequenceManagerStore {

    /** How long ago an aged namespace was created. */
    private static final Duration AGED_BY = Duration.ofMinutes(10);

    private final HikariDataSource dataSource;
    private final String table;

    public JdbcSequenceManagerStore(String jdbcUrl, String user, String password) {
        this(jdbcUrl, user, password, JdbcSequenceManager.DEFAULT_TABLE, pool -> { });
    }

    /**
     * @param pool changes the pool's settings as an application might (isolation level, auto-commit)
     */
    public JdbcSequenceManagerStore(String jdbcUrl, String user, String password, String table,
                                    Consumer<HikariConfig> pool) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(16);
        // the pool grows when a test needs it; idle connections of every test class would crowd a shared server
        config.setMinimumIdle(1);
        pool.accept(config);
        this.dataSource = new HikariDataSource(config);
        this.table = table;
        try {
            JdbcSequenceManager manager = new JdbcSequenceManager(dataSource, table);
            manager.createSchemaIfMissing();
            manager.verifySchema();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    /** The table of the namespace records, beside the slot table. */
    public String namespaceTable() {
        return table + "_ns";
    }

    @Override
    public ISequenceManager newManager() {
        return new JdbcSequenceManager(dataSource, table);
    }

    @Override
    public void expireLease(String namespace, int workerId) {
        update("UPDATE " + table + " SET expires_at = 0 WHERE ns = ? AND slot_id = ?", namespace, workerId);
    }

    @Override
    public long storedHighWater(String namespace, int workerId) {
        Object v = query("SELECT high_water FROM " + table + " WHERE ns = ? AND slot_id = ?", namespace, workerId);
        return v == null ? -1 : ((Number) v).longValue();
    }

    @Override
    public String storedOwner(String namespace, int workerId) {
        return (String) query("SELECT owner_token FROM " + table + " WHERE ns = ? AND slot_id = ?", namespace, workerId);
    }

    @Override
    public void deleteSlotRecord(String namespace, int workerId) {
        update("DELETE FROM " + table + " WHERE ns = ? AND slot_id = ?", namespace, workerId);
    }

    @Override
    public long centreNowMillis() {
        String sql = "SELECT " + new JdbcSequenceManager(dataSource, table).dialect().nowMillis();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            long now = rs.getLong(1);
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return now;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Inserts the namespace record the centre's first borrow would have written ten minutes ago by the database's
     * clock: the layout, the guard {@code ttl + maxSkew}, no slot ids yet.
     */
    @Override
    public void createAgedNamespace(String namespace, int slotCount, String layout, Duration ttl, Duration maxSkew) {
        insertRecord(namespace, layout, ttl.toMillis() + maxSkew.toMillis(), 0, centreNowMillis() - AGED_BY.toMillis());
    }

    /**
     * Inserts the namespace record as a borrower's first round writes it now, by the database's clock: after the
     * record was lost, {@code slotsCreated} is the slot count when slot rows survive, else 0.
     */
    public void writeNamespaceRecord(String namespace, String layout, long guardMillis, int slotsCreated) {
        insertRecord(namespace, layout, guardMillis, slotsCreated, centreNowMillis());
    }

    /** The namespace record's {@code created_at} (database clock, epoch ms), or -1 without a record. */
    public long namespaceCreatedAt(String namespace) {
        Object v = query("SELECT created_at FROM " + namespaceTable() + " WHERE ns = ?", namespace, null);
        return v == null ? -1 : ((Number) v).longValue();
    }

    private void insertRecord(String namespace, String layout, long guardMillis, int slotsCreated, long createdAt) {
        String sql = "INSERT INTO " + namespaceTable() + " (ns, layout, guard_ms, slots_created, created_at) VALUES (?, ?, ?, ?, ?)";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, namespace);
            ps.setString(2, layout);
            ps.setLong(3, guardMillis);
            ps.setInt(4, slotsCreated);
            ps.setLong(5, createdAt);
            ps.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Deletes the namespace's record (pinned layout, guard, slot count) and leaves its slot rows alone. */
    public void deleteNamespaceRecord(String namespace) {
        update("DELETE FROM " + namespaceTable() + " WHERE ns = ?", namespace, null);
    }

    /**
     * Locks the slot's row from another session ({@code SELECT … FOR UPDATE} in an open transaction), so every
     * statement that writes it waits; closing the handle rolls that transaction back.
     */
    @Override
    public AutoCloseable stall(String namespace, int workerId) throws SQLException {
        return RowLock.lock(dataSource, "SELECT slot_id FROM " + table + " WHERE ns = ? AND slot_id = ? FOR UPDATE",
                namespace, workerId);
    }

    @Override
    public void deleteNamespace(String namespace) {
        update("DELETE FROM " + table + " WHERE ns = ?", namespace, null);
        update("DELETE FROM " + namespaceTable() + " WHERE ns = ?", namespace, null);
    }

    @Override
    public void close() {
        dataSource.close();
    }

    /**
     * Runs one statement at READ COMMITTED, retried on a serialization failure: a pool whose default is
     * REPEATABLE READ fails a cleanup that meets a row a closing worker just returned.
     */
    private void update(String sql, String ns, Integer slot) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                ps.setString(1, ns);
                if (slot != null) {
                    ps.setInt(2, slot);
                }
                ps.executeUpdate();
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return;
            } catch (SQLException e) {
                if (attempt < 5 && JdbcRunner.isSerializationFailure(e)) {
                    sleepQuietly(20L * attempt);
                    continue;
                }
                throw new IllegalStateException(e);
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Object query(String sql, String ns, Integer slot) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, ns);
            if (slot != null) {
                ps.setInt(2, slot);
            }
            try (ResultSet rs = ps.executeQuery()) {
                Object value = rs.next() ? rs.getObject(1) : null;
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return value;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
