package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.test.SequenceManagerStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The JDBC centre over one real database, with hooks that read and edit its lease table directly. */
public final class JdbcSequenceManagerStore implements SequenceManagerStore {

    private final HikariDataSource dataSource;
    private final String table;

    public JdbcSequenceManagerStore(String jdbcUrl, String user, String password) {
        this(jdbcUrl, user, password, JdbcSequenceManager.DEFAULT_TABLE);
    }

    public JdbcSequenceManagerStore(String jdbcUrl, String user, String password, String table) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(16);
        this.dataSource = new HikariDataSource(config);
        this.table = table;
        JdbcSequenceManager manager = new JdbcSequenceManager(dataSource, table);
        manager.createSchemaIfMissing();
        manager.verifySchema();
    }

    public HikariDataSource dataSource() {
        return dataSource;
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
    public void deleteNamespace(String namespace) {
        update("DELETE FROM " + table + " WHERE ns = ?", namespace, null);
    }

    @Override
    public void close() {
        dataSource.close();
    }

    private void update(String sql, String ns, Integer slot) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, ns);
            if (slot != null) {
                ps.setInt(2, slot);
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object query(String sql, String ns, int slot) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, ns);
            ps.setInt(2, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
