package io.github.idworker.jdbc;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Runs the JDBC centres' units of work on a connection of the application's pool, committed apart from any
 * transaction of the caller. It guarantees that every unit ends within its timeouts, behaves alike under every
 * isolation level the pool may be configured with, and fails only with a {@link CenterUnavailableException}
 * that names the table and the database without credentials. Shared by every JDBC store ({@link JdbcStore})
 * so all treat connections alike.
 *
 * <p>Steps of one unit of work:
 * <ol>
 *   <li>Take a connection; on the first one, detect the database ({@link JdbcDialect}).</li>
 *   <li>Set the connection's network timeout (ignored by drivers that lack it) and, when the pool handed it out
 *       at another level, READ COMMITTED: each statement then sees what was committed when it started, and a
 *       write that meets a concurrent writer waits and re-reads instead of failing. On H2, whose statement
 *       timeout neither ends a lock wait nor stays with one statement, also bound lock waits by the statement
 *       timeout.</li>
 *   <li>Run the work. Every statement it gets from its {@link Session} carries the statement timeout. Commit:
 *       statement by statement on an auto-commit connection, all together otherwise or when a transaction was
 *       asked for. Roll back on failure.</li>
 *   <li>Put back what step 2 changed (H2's timeouts, the isolation level, the network timeout) and the
 *       auto-commit mode, so the pool gets the connection as it lent it.</li>
 *   <li>A serialization failure or a deadlock (SQLSTATE {@code 40001}, {@code 40P01}, MySQL/MariaDB error
 *       {@code 1020}, H2 error {@code 90131}) is a lost race: run the whole unit again after a random pause
 *       that grows with each attempt, at most {@value #MAX_ATTEMPTS} times. Units are written to be safe to
 *       run again.</li>
 *   <li>Any other failure becomes a {@link CenterUnavailableException} naming what was done, the table and the
 *       database URL, with secrets removed from the URL and from the driver's message
 *       ({@link StoreLocations#redact(String)}); a login the database refused, a {@link CenterLoginRefusedException}
 *       naming the user and whether a password was sent.</li>
 * </ol>
 */
public final class JdbcRunner {

    private static final int MAX_ATTEMPTS = 8;
    /** Longest pause between two attempts, in milliseconds; the pauses double up to it, each one random below. */
    private static final int MAX_BACKOFF_MILLIS = 128;
    /** Runs the driver's network-timeout callbacks on the calling thread, as Hikari's own executor does. */
    private static final Executor DIRECT = Runnable::run;
    private static final Set<String> SERIALIZATION_STATES = Set.of("40001", "40P01", "90131");
    private static final Set<String> TIMEOUT_STATES = Set.of("57014", "70100", "HYT00");

    private final DataSource dataSource;
    private final String table;
    private final JdbcTimeouts timeouts;
    /** Detected on the first unit of work; {@code null} until then. */
    private volatile @Nullable JdbcDialect dialect;

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param table the table named in error messages
     * @param timeouts the statement and network timeouts of every unit of work
     */
    public JdbcRunner(DataSource dataSource, String table, JdbcTimeouts timeouts) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        if (timeouts == null) {
            throw new IllegalArgumentException("timeouts must not be null");
        }
        this.dataSource = dataSource;
        this.table = table;
        this.timeouts = timeouts;
    }

    /** Work on one connection; its result may be {@code null} (no row, or no result at all), handed back as is. */
    @FunctionalInterface
    public interface SqlWork<T extends @Nullable Object> {
        T run(Session session) throws SQLException;
    }

    /** The connection of one unit of work, handing out statements that carry the statement timeout. */
    public static final class Session {

        private final Connection connection;
        private final int statementSeconds;
        private final JdbcDialect dialect;

        private Session(Connection connection, int statementSeconds, JdbcDialect dialect) {
            this.connection = connection;
            this.statementSeconds = statementSeconds;
            this.dialect = dialect;
        }

        /** The database behind the connection. */
        public JdbcDialect dialect() {
            return dialect;
        }

        /** A prepared statement that the database cancels after the statement timeout; the caller closes it. */
        public PreparedStatement prepare(String sql) throws SQLException {
            return withTimeout(connection.prepareStatement(sql));
        }

        /** A plain statement that the database cancels after the statement timeout; the caller closes it. */
        public Statement statement() throws SQLException {
            return withTimeout(connection.createStatement());
        }

        private <S extends Statement> S withTimeout(S statement) throws SQLException {
            try {
                statement.setQueryTimeout(statementSeconds);
                return statement;
            } catch (SQLException | RuntimeException e) {
                statement.close();
                throw e;
            }
        }

        /**
         * Undoes what this unit wrote so far when it runs as one transaction (a no-op on an auto-commit
         * connection, where each statement is committed already). For a unit that handles an expected failure,
         * such as a duplicate key, itself: PostgreSQL accepts nothing more in a transaction after a failed
         * statement.
         */
        public void rollback() throws SQLException {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        }
    }

    /** The dialect of the database behind the data source (connects once to find out). */
    public JdbcDialect dialect() {
        JdbcDialect d = dialect;
        if (d == null) {
            d = run("detect the database", Session::dialect);
        }
        return d;
    }

    /** The timeouts every unit of work runs with. */
    public JdbcTimeouts timeouts() {
        return timeouts;
    }

    /**
     * Runs {@code work} and commits it: each statement on its own when the pool hands out auto-commit
     * connections, all of them at the end otherwise.
     *
     * @param what what the work does, for error messages ("renew worker id 3")
     */
    public <T extends @Nullable Object> T run(String what, SqlWork<T> work) {
        return run(what, false, work);
    }

    /** Runs every statement of {@code work} in one transaction, committed at the end. */
    public <T extends @Nullable Object> T inTransaction(String what, SqlWork<T> work) {
        return run(what, true, work);
    }

    /** Sets the parameters of one prepared statement. */
    @FunctionalInterface
    public interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    /**
     * Runs one {@code INSERT} on its own, unless a row with its key exists already: the insert is tried, and a
     * duplicate-key failure ({@link #isDuplicateKey}) means a concurrent writer (or an earlier run) inserted the
     * row first, which the caller expects. That unit is rolled back, as PostgreSQL accepts nothing more in a
     * transaction after a failed statement.
     *
     * @return {@code true} when this call inserted the row, {@code false} when one with its key existed
     */
    public boolean insertUnlessPresent(String what, String sql, Binder binder) {
        return insertUnlessPresent(what, sql, binder, e -> e);
    }

    /**
     * {@link #insertUnlessPresent(String, String, Binder)}, with any other failure of the statement replaced by
     * {@code otherFailure} before it is reported: for a row whose values must not reach an error message, since
     * some drivers quote the failing row.
     */
    public boolean insertUnlessPresent(String what, String sql, Binder binder,
                                       UnaryOperator<SQLException> otherFailure) {
        return run(what, s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                binder.bind(ps);
                ps.executeUpdate();
                return Boolean.TRUE;
            } catch (SQLException e) {
                if (isDuplicateKey(e)) {
                    s.rollback();
                    return Boolean.FALSE;
                }
                throw otherFailure.apply(e);
            }
        });
    }

    private <T extends @Nullable Object> T run(String what, boolean transaction, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return once(what, transaction, work);
            } catch (SQLException e) {
                if (attempt < MAX_ATTEMPTS && isSerializationFailure(e)) {
                    pause(attempt, what, e);
                    continue;
                }
                throw new CenterUnavailableException("Could not " + what + " in table " + table + " at " + location()
                        + ": " + describe(e), e);
            }
        }
    }

    private <T extends @Nullable Object> T once(String what, boolean transaction, SqlWork<T> work) throws SQLException {
        Connection c = connect(what);
        try (c) {
            JdbcDialect d = dialect;
            if (d == null) {
                d = JdbcDialect.fromProductName(c.getMetaData().getDatabaseProductName());
                dialect = d;
            }
            Borrowed borrowed = new Borrowed(c);
            try {
                borrowed.prepare(d, timeouts);
                boolean autoCommit = c.getAutoCommit();
                boolean manualCommit = transaction || !autoCommit;
                if (transaction && autoCommit) {
                    c.setAutoCommit(false);
                }
                try {
                    T result = work.run(new Session(c, timeouts.statementSeconds(), d));
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
                        quietly(() -> c.setAutoCommit(true));
                    }
                }
            } finally {
                borrowed.restore();
            }
        }
    }

    /**
     * What a unit of work changed on a pooled connection, to put it back afterwards. A setting that cannot be put
     * back (the connection broke) is left to the pool, which discards broken connections.
     */
    private static final class Borrowed {

        private final Connection connection;
        private int networkMillis = -1;
        private int isolation = Connection.TRANSACTION_READ_COMMITTED;
        private int h2QueryTimeout = -1;
        private int h2LockTimeout = -1;

        Borrowed(Connection connection) {
            this.connection = connection;
        }

        void prepare(JdbcDialect dialect, JdbcTimeouts timeouts) throws SQLException {
            try {
                int previous = connection.getNetworkTimeout();
                connection.setNetworkTimeout(DIRECT, timeouts.networkMillis());
                networkMillis = previous;
            } catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError e) {
                // the driver cannot bound its socket: the statement timeout still bounds every wait it reports
            }
            int level = connection.getTransactionIsolation();
            if (level != Connection.TRANSACTION_READ_COMMITTED) {
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                isolation = level;
            }
            if (dialect.hasSessionTimeouts()) {
                try (Statement st = connection.createStatement()) {
                    h2QueryTimeout = st.getQueryTimeout();
                    long lockMillis = timeouts.statementTimeout().toMillis();
                    try (ResultSet rs = st.executeQuery("SELECT LOCK_TIMEOUT()")) {
                        rs.next();
                        if (rs.getLong(1) != lockMillis) {
                            h2LockTimeout = rs.getInt(1);
                        }
                    }
                    if (h2LockTimeout >= 0) {
                        st.execute("SET LOCK_TIMEOUT " + lockMillis);
                    }
                }
            }
        }

        void restore() {
            if (h2QueryTimeout >= 0) {
                quietly(() -> {
                    try (Statement st = connection.createStatement()) {
                        if (h2LockTimeout >= 0) {
                            st.execute("SET LOCK_TIMEOUT " + h2LockTimeout);
                        }
                        // H2 keeps a statement's query timeout for the whole session; the JDBC call keeps its cache right
                        st.setQueryTimeout(h2QueryTimeout);
                    }
                });
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                quietly(() -> connection.setTransactionIsolation(isolation));
            }
            if (networkMillis >= 0) {
                quietly(() -> connection.setNetworkTimeout(DIRECT, networkMillis));
            }
        }
    }

    @FunctionalInterface
    private interface SqlAction {
        void run() throws SQLException;
    }

    private static void quietly(SqlAction action) {
        try {
            action.run();
        } catch (SQLException | RuntimeException ignored) {
            // the connection broke: the pool resets or discards it
        }
    }

    /** Full jitter: a random pause below a bound that doubles with each attempt. */
    private void pause(int attempt, String what, SQLException cause) {
        int bound = Math.min(MAX_BACKOFF_MILLIS, 2 << attempt);
        try {
            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(1, bound + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CenterUnavailableException("Interrupted while retrying to " + what + " in table " + table
                    + " at " + location() + " after a lost race: " + describe(cause), cause);
        }
    }

    private Connection connect(String what) {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw connectFailure(what, e, describe(e));
        } catch (RuntimeException e) {
            throw connectFailure(what, e, StoreLocations.redact(String.valueOf(e.getMessage())));
        }
    }

    /** A refused login is no unreachable database: it names the account and its properties instead of the URL. */
    private CenterUnavailableException connectFailure(String what, Exception e, String message) {
        if (RefusedLogin.isRefusedLogin(e)) {
            return new CenterLoginRefusedException("The database at " + location() + " refused the login of "
                    + RefusedLogin.account(dataSource, url()) + ", so idworker could not " + what
                    + " (spring.datasource.username, spring.datasource.password): " + message, e);
        }
        return new CenterUnavailableException("Cannot reach the database at " + location() + " to " + what
                + " (spring.datasource.url): " + message, e);
    }

    /** The driver's message without credentials, and which timeout ended the call when one did. */
    private String describe(SQLException e) {
        String message = StoreLocations.redact(String.valueOf(e.getMessage()).trim());
        if (isTimeout(e)) {
            return message + " (no answer within the statement timeout of " + timeouts.statementSeconds() + "s, "
                    + JdbcTimeouts.STATEMENT_TIMEOUT_PROPERTY + ")";
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return message + " (no answer within the network timeout of " + timeouts.networkTimeout().toMillis()
                        + "ms, " + JdbcTimeouts.NETWORK_TIMEOUT_PROPERTY + ")";
            }
        }
        return message;
    }

    /**
     * The data source's JDBC URL where it tells it, without credentials ({@link StoreLocations#redact}), for error
     * messages; otherwise its class name.
     */
    public String location() {
        String url = url();
        return url != null ? StoreLocations.redact(url) : dataSource.getClass().getName();
    }

    /** The data source's JDBC URL as configured, credentials included: for no message. */
    private @Nullable String url() {
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
        return null;
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

    /**
     * Whether a statement lost a race against a concurrent transaction and may simply be run again: a
     * serialization failure or deadlock (SQLSTATE 40001, 40P01), MySQL/MariaDB's "record has changed since last
     * read" (error 1020, under {@code innodb_snapshot_isolation}), or H2's concurrent update (90131).
     */
    public static boolean isSerializationFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s
                    && ((s.getSQLState() != null && SERIALIZATION_STATES.contains(s.getSQLState()))
                    || s.getErrorCode() == 1020 && "HY000".equals(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the database cancelled a statement for its timeout or gave up waiting for a lock. */
    static boolean isTimeout(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTimeoutException
                    || (t instanceof SQLException s && s.getSQLState() != null && TIMEOUT_STATES.contains(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }
}
