package io.github.idworker.jdbc;

import io.github.idworker.CenterUnavailableException;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs the JDBC centres' statements on a connection of their own, committed apart from any transaction of the
 * caller, and turns every failure into a {@link CenterUnavailableException} naming the table and the database
 * URL. Shared by the lease centre and the segment allocator so both treat connections alike.
 */
public final class JdbcRunner {

    private static final int MAX_ATTEMPTS = 8;

    private final DataSource dataSource;
    private final String table;

    public JdbcRunner(DataSource dataSource, String table) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        this.dataSource = dataSource;
        this.table = table;
    }

    /** Work on one connection. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} and commits it: each statement on its own when the pool hands out auto-commit
     * connections, all of them at the end otherwise.
     */
    public <T> T run(String what, SqlWork<T> work) {
        return run(what, false, work);
    }

    /**
     * Runs every statement of {@code work} in one transaction, retrying it when the database reports a
     * serialization failure or a deadlock.
     */
    public <T> T inTransaction(String what, SqlWork<T> work) {
        return run(what, true, work);
    }

    private <T> T run(String what, boolean transaction, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            Connection c = connect(what);
            try (c) {
                boolean autoCommit = c.getAutoCommit();
                boolean manualCommit = transaction || !autoCommit;
                if (transaction && autoCommit) {
                    c.setAutoCommit(false);
                }
                try {
                    T result = work.run(c);
                    if (manualCommit) {
                        c.commit();
                    }
                    return result;
                } catch (SQLException | RuntimeException e) {
                    if (manualCommit) {
                        try {
                            c.rollback();
                        } catch (SQLException r) {
                            e.addSuppressed(r);
                        }
                    }
                    throw e;
                } finally {
                    if (transaction && autoCommit) {
                        try {
                            c.setAutoCommit(true);
                        } catch (SQLException ignored) {
                            // the pool resets or discards the connection
                        }
                    }
                }
            } catch (SQLException e) {
                if (transaction && attempt < MAX_ATTEMPTS && isTransient(e)) {
                    continue;
                }
                throw new CenterUnavailableException("Could not " + what + " in table " + table + " at " + location()
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** A connection of the data source; the caller closes it. */
    public Connection connect(String what) {
        try {
            return dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            throw new CenterUnavailableException("Cannot reach the database at " + location() + " to " + what
                    + " (spring.datasource.url): " + e.getMessage(), e);
        }
    }

    /** The data source's JDBC URL where it tells it, for error messages. */
    public String location() {
        for (String getter : new String[] {"getJdbcUrl", "getUrl", "getURL"}) {
            try {
                Method m = dataSource.getClass().getMethod(getter);
                Object url = m.invoke(dataSource);
                if (url != null) {
                    return url.toString();
                }
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not this kind of data source
            }
        }
        return dataSource.getClass().getName();
    }

    /** Whether an insert failed on a unique key: SQLSTATE 23505, or MySQL's 23000 with error 1062 or 1586. */
    public static boolean isDuplicateKey(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                if (state.equals("23505") || (state.equals("23000") && (s.getErrorCode() == 1062 || s.getErrorCode() == 1586))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a transaction failed on a serialization conflict or deadlock and may simply be run again. */
    public static boolean isTransient(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().equals("40001") || s.getSQLState().equals("40P01"))) {
                return true;
            }
        }
        return false;
    }
}
