package io.github.idworker.test.segment;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.test.jdbc.RowLock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Consumer;

/** The JDBC segment allocator over one real database, with hooks that read and edit its table directly. */
public final class JdbcSegmentAllocatorStore implements SegmentAllocatorStore {

    private final HikariDataSource dataSource;
    private final String table;

    public JdbcSegmentAllocatorStore(String jdbcUrl, String user, String password) {
        this(jdbcUrl, user, password, JdbcSegmentAllocator.DEFAULT_TABLE, false);
    }

    /**
     * @param manualCommit whether the pool hands out connections with auto-commit off, as some applications
     *        configure theirs
     */
    public JdbcSegmentAllocatorStore(String jdbcUrl, String user, String password, String table, boolean manualCommit) {
        this(jdbcUrl, user, password, table, pool -> pool.setAutoCommit(!manualCommit));
    }

    /**
     * @param pool changes the pool's settings as an application might (isolation level, auto-commit)
     */
    public JdbcSegmentAllocatorStore(String jdbcUrl, String user, String password, String table,
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
            JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(dataSource, table, false);
            allocator.createSchemaIfMissing();
            allocator.verifySchema();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    public String table() {
        return table;
    }

    @Override
    public JdbcSegmentAllocator newAllocator(boolean autoCreateTags) {
        return new JdbcSegmentAllocator(dataSource, table, autoCreateTags);
    }

    @Override
    public long storedMaxId(String bizTag) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT max_id FROM " + table + " WHERE biz_tag = ?")) {
            ps.setString(1, bizTag);
            try (ResultSet rs = ps.executeQuery()) {
                long v = rs.next() ? rs.getLong(1) : -1;
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return v;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sets max_id and nothing else, as an operator editing the row by hand would. */
    @Override
    public void editMaxId(String bizTag, long maxId) {
        execute("UPDATE " + table + " SET max_id = ? WHERE biz_tag = ?", maxId, bizTag);
    }

    /**
     * Sets the whole row back to {@code maxId}, high-water included, as a restore of the database from an old
     * backup would: the table cannot tell, only a generator that saw later ranges (or Redis) can.
     */
    public void restoreRow(String bizTag, long maxId) {
        execute("UPDATE " + table + " SET max_id = ?, high_water = ? WHERE biz_tag = ?", maxId, bizTag);
    }

    /** Locks the tag's row from another session until the handle is closed, as a hung transaction would. */
    public AutoCloseable lockTag(String bizTag) throws SQLException {
        return RowLock.lock(dataSource, "SELECT max_id FROM " + table + " WHERE biz_tag = ? FOR UPDATE", bizTag);
    }

    @Override
    public void deleteTag(String bizTag) {
        execute("DELETE FROM " + table + " WHERE biz_tag = ?", null, bizTag);
    }

    private void execute(String sql, Long number, String bizTag) {
        try (Connection c = dataSource.getConnection()) {
            // as an operator's own session would be (the pool may hand out REPEATABLE READ): never a serialization
            // failure against the allocations it races with
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            executeOn(c, sql, number, bizTag);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void executeOn(Connection c, String sql, Long number, String bizTag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            long parameters = sql.chars().filter(ch -> ch == '?').count();
            while (number != null && i < parameters) {
                ps.setLong(i++, number);
            }
            ps.setString(i, bizTag);
            ps.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
