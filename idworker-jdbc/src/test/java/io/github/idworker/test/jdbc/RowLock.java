package io.github.idworker.test.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A row locked by another session: an open transaction that selected it {@code FOR UPDATE}. Every statement
 * that writes the row waits until {@link #close()} rolls the transaction back.
 */
public final class RowLock implements AutoCloseable {

    private final Connection connection;
    private final boolean autoCommit;

    private RowLock(Connection connection, boolean autoCommit) {
        this.connection = connection;
        this.autoCommit = autoCommit;
    }

    /**
     * Runs {@code selectForUpdate} with {@code keys} as its parameters in a transaction left open.
     *
     * @throws IllegalStateException when the query finds no row, so a test never believes a lock it lacks
     */
    public static RowLock lock(DataSource dataSource, String selectForUpdate, Object... keys) throws SQLException {
        Connection c = dataSource.getConnection();
        boolean autoCommit = c.getAutoCommit();
        try {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(selectForUpdate)) {
                for (int i = 0; i < keys.length; i++) {
                    ps.setObject(i + 1, keys[i]);
                }
                try (var rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("no row to lock: " + selectForUpdate);
                    }
                }
            }
            return new RowLock(c, autoCommit);
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            c.close();
            throw e;
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        } finally {
            connection.close();
        }
    }
}
