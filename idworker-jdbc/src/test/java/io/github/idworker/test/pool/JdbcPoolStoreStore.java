package io.github.idworker.test.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.jdbc.JdbcPoolStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JDBC pool store over one real database, with hooks that write its table directly, as an operator would.
 */
public final class JdbcPoolStoreStore implements PoolStoreStore {

    /** A password given in the URL, as H2's {@code ;PASSWORD=} or a query parameter. */
    private static final Pattern URL_PASSWORD = Pattern.compile("password=([^;&]+)", Pattern.CASE_INSENSITIVE);
    /** Fields whose column is not the field's name with '_' for '-'. */
    private static final Map<String, String> COLUMNS = Map.of("type", "increasing_type",
            "check-interval", "check_interval_ms");

    private final HikariDataSource dataSource;
    private final String table;
    private final List<String> credentials = new ArrayList<>();

    public JdbcPoolStoreStore(String jdbcUrl, String user, String password) {
        this(jdbcUrl, user, password, JdbcPoolStore.DEFAULT_TABLE, pool -> { });
    }

    /**
     * @param password {@code null} when the URL holds it
     * @param pool changes the pool's settings as an application might (isolation level, auto-commit)
     */
    public JdbcPoolStoreStore(String jdbcUrl, String user, String password, String table,
                              Consumer<HikariConfig> pool) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        if (password != null) {
            config.setPassword(password);
            if (!password.isEmpty()) {
                credentials.add(password);
            }
        }
        Matcher inUrl = URL_PASSWORD.matcher(jdbcUrl);
        while (inUrl.find()) {
            credentials.add(inUrl.group(1));
        }
        config.setMaximumPoolSize(16);
        // the pool grows when a test needs it; idle connections of every test class would crowd a shared server
        config.setMinimumIdle(1);
        pool.accept(config);
        this.dataSource = new HikariDataSource(config);
        this.table = table;
        try {
            JdbcPoolStore store = newStore();
            store.createSchemaIfMissing();
            store.verifySchema();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    @Override
    public JdbcPoolStore newStore() {
        return new JdbcPoolStore(dataSource, table, JdbcTimeouts.defaults());
    }

    @Override
    public void deleteEntity(String key) {
        newStore().deleteEntity(key);
    }

    @Override
    public void setSetting(String key, String field, long value) {
        String column = COLUMNS.getOrDefault(field, field.replace('-', '_').toLowerCase(Locale.ROOT));
        execute("UPDATE " + table + " SET " + column + " = ? WHERE entity_key = ?", value, key);
    }

    @Override
    public void insertRow(PoolEntity e, PoolEnvironment environment) {
        execute("INSERT INTO " + table + " (entity_key, name, increasing_type, start_offset, step, current_offset, "
                        + "max_per_request, max_per_second, threshold_percent, check_interval_ms, max_pool_size, max_gap, "
                        + "environment, environments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                e.key(), e.name(), e.type().name(), e.startOffset(), e.step(), e.currentOffset(), e.maxPerRequest(),
                e.maxPerSecond(), e.thresholdPercent(), e.checkInterval().toMillis(), e.maxPoolSize(), e.maxGap(),
                environment == null ? null : environment.environment(),
                environment == null ? null : environment.environments());
    }

    @Override
    public List<String> credentials() {
        return credentials;
    }

    @Override
    public void verifySchemaOf(String otherTable) {
        new JdbcPoolStore(dataSource, otherTable, JdbcTimeouts.defaults()).verifySchema();
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
                if (values[i] == null) {
                    ps.setNull(i + 1, Types.INTEGER);
                } else {
                    ps.setObject(i + 1, values[i]);
                }
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
