package io.github.idworker.test.jdbc;

import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC centres run each unit of work at READ COMMITTED with their own timeouts, and hand the connection back
 * exactly as the application's pool lent it: isolation level, network timeout, auto-commit and, on H2, the
 * session's query and lock timeouts.
 */
abstract class AbstractConnectionSettingsTest {

    private static final Executor DIRECT = Runnable::run;

    private final Database database;

    protected AbstractConnectionSettingsTest(Database database) {
        this.database = database;
    }

    private static boolean isH2(Connection c) throws SQLException {
        return JdbcDialect.fromProductName(c.getMetaData().getDatabaseProductName()) == JdbcDialect.H2;
    }

    /** The session's lock timeout where the database has one idworker changes (H2), else {@code -1}. */
    private static long lockTimeout(Connection c) throws SQLException {
        if (!isH2(c)) {
            return -1;
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT LOCK_TIMEOUT()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Sets a lock timeout of the session where the database has one idworker changes (H2). */
    private static void setLockTimeout(Connection c, long millis) throws SQLException {
        if (isH2(c)) {
            try (Statement st = c.createStatement()) {
                st.execute("SET LOCK_TIMEOUT " + millis);
            }
        }
    }

    private record Settings(int isolation, int networkTimeout, boolean autoCommit, int queryTimeout, long lockTimeout) {
    }

    private Settings settings(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            return new Settings(c.getTransactionIsolation(), c.getNetworkTimeout(), c.getAutoCommit(),
                    st.getQueryTimeout(), lockTimeout(c));
        }
    }

    @Test
    void everyUnitOfWorkHandsTheConnectionBackAsItWasLent() throws Exception {
        String ns = "t-" + UUID.randomUUID().toString().substring(0, 13);
        String tag = "s-" + UUID.randomUUID().toString().substring(0, 13);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        try (Connection physical = DriverManager.getConnection(database.url(), database.user(), "")) {
            physical.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                physical.setNetworkTimeout(DIRECT, 12_345);
            } catch (SQLException unsupported) {
                // H2 has none; the check below compares with whatever it reports
            }
            setLockTimeout(physical, 7_000);
            Settings lent = settings(physical);

            JdbcSequenceManager manager = new JdbcSequenceManager(SingleConnectionDataSource.of(physical),
                    "settings_slot_" + suffix);
            JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(SingleConnectionDataSource.of(physical),
                    "settings_segment_" + suffix, true);
            try {
                manager.createSchemaIfMissing();
                manager.verifySchema();
                assertThat(settings(physical)).isEqualTo(lent);
                WorkerLease lease = manager.borrow(new LeaseRequest(ns, 4, "owner", Duration.ofSeconds(15),
                        System.currentTimeMillis(), Duration.ofSeconds(1), "host", 1,
                        SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned()));
                assertThat(settings(physical)).isEqualTo(lent);
                // what a worker asks while its clock is still below a new namespace's floor: the stored high-water
                // (one past it would lie beyond centre now + ttl + max-skew, which the centre refuses, rule 13)
                manager.renew(lease, lease.highWaterMillis());
                manager.giveBack(lease, lease.highWaterMillis());
                assertThat(settings(physical)).isEqualTo(lent);

                allocator.createSchemaIfMissing();
                assertThat(allocator.allocate(tag, 10).firstId()).isEqualTo(1);
                assertThat(settings(physical)).isEqualTo(lent);
            } finally {
                physical.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                try (Statement st = physical.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS settings_slot_" + suffix);
                    st.execute("DROP TABLE IF EXISTS settings_slot_" + suffix + "_ns");
                    st.execute("DROP TABLE IF EXISTS settings_segment_" + suffix);
                }
            }
        }
    }
}
