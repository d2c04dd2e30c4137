package io.github.idworker.test.service;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.service.jdbc.JdbcAppStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JDBC application store over one real database, in a table of its own ({@code idworker_app_<random>})
 * created when opened and dropped when closed, with a hook that writes rows directly, as an operator would.
 */
public final class JdbcAppStoreStore implements AppStoreStore {

    /** A password given in the URL, as H2's {@code ;PASSWORD=} or a query parameter. */
    private static final Pattern URL_PASSWORD = Pattern.compile("password=([^;&]+)", Pattern.CASE_INSENSITIVE);

    private final HikariDataSource dataSource;
    private final String table = "idworker_app_" + UUID.randomUUID().toString().substring(0, 8);
    private final List<String> credentials = new ArrayList<>();

    /** @param password {@code null} when the URL holds it */
    public JdbcAppStoreStore(String jdbcUrl, String user, String password) {
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
        config.setMaximumPoolSize(AbstractAppStoreContractTest.RACERS + 2);
        config.setMinimumIdle(1);
        this.dataSource = new HikariDataSource(config);
        try {
            JdbcAppStore store = newStore();
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

    public String table() {
        return table;
    }

    @Override
    public JdbcAppStore newStore() {
        return new JdbcAppStore(dataSource, table, JdbcTimeouts.defaults());
    }

    @Override
    public void insertRow(AppRow row) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (app_key, name, secret, "
                     + "previous_secret, entities, max_per_second, enabled) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, row.appKey());
            ps.setString(2, row.name());
            ps.setString(3, row.secret());
            if (row.previousSecret() == null) {
                ps.setNull(4, Types.VARCHAR);
            } else {
                ps.setString(4, row.previousSecret());
            }
            ps.setString(5, row.entities());
            ps.setInt(6, row.maxPerSecond());
            ps.setBoolean(7, row.enabled());
            ps.executeUpdate();
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot insert the row of " + row.appKey(), e);
        }
    }

    @Override
    public void deleteApp(String appKey) {
        newStore().delete(appKey);
    }

    @Override
    public void refuseMaxPerSecondAbove(int max) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " ADD CONSTRAINT " + table + "_max CHECK (max_per_second <= " + max
                    + ")");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot add a CHECK constraint to " + table, e);
        }
    }

    @Override
    public List<String> credentials() {
        return credentials;
    }

    @Override
    public void createSchemaIfMissing() {
        newStore().createSchemaIfMissing();
    }

    @Override
    public void verifySchemaOf(String otherTable) {
        new JdbcAppStore(dataSource, otherTable, JdbcTimeouts.defaults()).verifySchema();
    }

    /** Drops this store's table, if a test has not already, and closes the pool. */
    public void dropTable() {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop " + table, e);
        }
    }

    @Override
    public void close() {
        try {
            dropTable();
        } finally {
            dataSource.close();
        }
    }
}
