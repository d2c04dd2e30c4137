package io.github.idworker.test.serial;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.jdbc.JdbcSerialStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * The JDBC serial store over one real database, with hooks that write its tables directly, as an operator
 * would.
 */
public final class JdbcSerialStoreStore implements SerialStoreStore {

    private final HikariDataSource dataSource;
    private final String table;

    public JdbcSerialStoreStore(String jdbcUrl, String user, String password) {
        this(jdbcUrl, user, password, JdbcSerialStore.DEFAULT_TABLE, pool -> { });
    }

    /**
     * @param pool changes the pool's settings as an application might (isolation level, auto-commit)
     */
    public JdbcSerialStoreStore(String jdbcUrl, String user, String password, String table,
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
            JdbcSerialStore store = newStore();
            store.createSchemaIfMissing();
            store.verifySchema();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    /** Where error messages say the rules live, for {@link io.github.idworker.serial.SerialRules}. */
    public String where() {
        return "table " + table + " at " + dataSource.getJdbcUrl();
    }

    @Override
    public JdbcSerialStore newStore() {
        return new JdbcSerialStore(dataSource, table, JdbcTimeouts.defaults());
    }

    /** Inserts {@code rule} into the rule table with plain SQL, as an operator adding a rule would. */
    public void insertRule(SerialRule rule) {
        execute("INSERT INTO " + table + " (rule_name, prefix, date_pattern, width, start_number, max_number, "
                        + "reset_period, zone_id, critical, min_batch, max_batch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rule.name(), rule.prefix(), rule.datePattern(), rule.width(), rule.start(), rule.max(),
                rule.reset().propertyValue(), rule.zone().getId(), rule.critical(), rule.minBatch(), rule.maxBatch());
    }

    /** Sets one numeric column of a rule's row ({@code max_number}, {@code max_batch}, …), as an operator tuning it. */
    public void setRuleColumn(String rule, String column, long value) {
        execute("UPDATE " + table + " SET " + column + " = ? WHERE rule_name = ?", value, rule);
    }

    /** Sets one text column of a rule's row ({@code reset_period}, {@code prefix}, …), as an operator editing it. */
    public void setRuleText(String rule, String column, String value) {
        execute("UPDATE " + table + " SET " + column + " = ? WHERE rule_name = ?", value, rule);
    }

    @Override
    public void setLimits(String rule, long start, long max) {
        execute("UPDATE " + table + " SET start_number = ?, max_number = ? WHERE rule_name = ?", start, max, rule);
    }

    /** Sets high_water and nothing else, as an operator editing the period's row by hand would. */
    @Override
    public void editHighWater(String rule, String period, long highWater) {
        execute("UPDATE " + table + JdbcSerialStore.PERIOD_TABLE_SUFFIX + " SET high_water = ? WHERE rule_name = ? "
                + "AND period = ?", highWater, rule, period);
    }

    @Override
    public void deleteRule(String rule) {
        execute("DELETE FROM " + table + JdbcSerialStore.PERIOD_TABLE_SUFFIX + " WHERE rule_name = ?", rule);
        execute("DELETE FROM " + table + " WHERE rule_name = ?", rule);
    }

    @Override
    public void deleteRuleRecordOnly(String rule) {
        execute("DELETE FROM " + table + " WHERE rule_name = ?", rule);
    }

    /** How many period rows the table holds for {@code rule}. */
    public int periodRows(String rule) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table
                     + JdbcSerialStore.PERIOD_TABLE_SUFFIX + " WHERE rule_name = ?")) {
            ps.setString(1, rule);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int rows = rs.getInt(1);
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void execute(String sql, Object... values) {
        try (Connection c = dataSource.getConnection()) {
            // as an operator's own session would be (the pool may hand out REPEATABLE READ): never a serialization
            // failure against the reservations it races with
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            executeOn(c, sql, values);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void executeOn(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
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
