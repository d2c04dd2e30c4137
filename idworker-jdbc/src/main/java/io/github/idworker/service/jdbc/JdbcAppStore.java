package io.github.idworker.service.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcStore;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.service.AppStore;
import io.github.idworker.service.ServiceApp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The ID service's applications in one table of a relational database (H2, MySQL, MariaDB, PostgreSQL) over a
 * plain {@link DataSource}: {@code idworker_app}, one row per application key. Every operation runs through
 * {@link JdbcRunner} (its own committed transaction, bounded by the statement and network timeouts).
 *
 * <p>Guarantees: a row that does not make a valid {@link ServiceApp} (an operator's typo) is skipped with a WARN
 * naming the key and the column, never the secret, so one bad row does not lock every application out; no
 * statement, log line or exception message here carries a secret. Operators add, disable
 * ({@code enabled = FALSE}) and rotate applications with plain SQL: a rotation sets {@code previous_secret} to
 * the old secret and {@code secret} to the new one, and later {@code previous_secret} to NULL.
 */
public class JdbcAppStore extends JdbcStore implements AppStore {

    public static final String DEFAULT_TABLE = "idworker_app";
    public static final String TABLE_PROPERTY = "idworker.service.table";
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.service.initialize-schema";

    private static final Logger log = LoggerFactory.getLogger(JdbcAppStore.class);
    private static final String COLUMNS = "app_key, name, secret, previous_secret, entities, max_per_second, enabled";
    private static final Tables TABLES = Tables.of("service/jdbc", DEFAULT_TABLE, TABLE_PROPERTY,
            INITIALIZE_SCHEMA_PROPERTY, COLUMNS + ", created_at, update_time");


    public JdbcAppStore(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE, JdbcTimeouts.defaults());
    }

    /**
     * @throws IdWorkerConfigurationException naming {@value #TABLE_PROPERTY} when the name is not a plain SQL
     *         identifier
     */
    public JdbcAppStore(DataSource dataSource, String tableName, JdbcTimeouts timeouts) {
        super(dataSource, tableName, timeouts, TABLES);
    }

    @Override
    public List<ServiceApp> findAll() {
        return jdbc().run("read the ID service's applications", s -> {
            List<ServiceApp> apps = new ArrayList<>();
            try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + " FROM " + tableName() + " ORDER BY app_key");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ServiceApp app = toApp(rs);
                    if (app != null) {
                        apps.add(app);
                    }
                }
            }
            return apps;
        });
    }

    @Override
    @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable, which NullAway
    // checks only in JSpecify mode
    public Optional<ServiceApp> find(String appKey) {
        return Optional.ofNullable(jdbc().run("read application '" + appKey + "'", s -> {
            try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + " FROM " + tableName()
                    + " WHERE app_key = ?")) {
                ps.setString(1, appKey);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? toApp(rs) : null;
                }
            }
        }));
    }

    /** The row of {@code appKey}, or null; an invalid row fails naming its field (never the secret). */
    @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable, which NullAway
    // checks only in JSpecify mode
    private @Nullable ServiceApp findValid(String appKey) {
        return jdbc().run("read application '" + appKey + "'", s -> {
            try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + " FROM " + tableName()
                    + " WHERE app_key = ?")) {
                ps.setString(1, appKey);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    try {
                        return read(rs);
                    } catch (IdWorkerConfigurationException e) {
                        // its message is always "property: detail"
                        String detail = Objects.requireNonNull(e.getMessage()).substring(e.getProperty().length() + 2);
                        throw new IdWorkerConfigurationException(e.getProperty(), "the row of application '" + appKey
                                + "' in table " + tableName() + " is invalid (" + detail + "); correct or delete "
                                + "the row, the stored row wins over the configured application", e);
                    }
                }
            }
        });
    }

    @Override
    public void save(ServiceApp app) {
        for (int attempt = 1; attempt <= 4; attempt++) {
            if (update(app) || insert(app)) {
                return;
            }
            // inserted by another instance between our update and insert: update it
        }
        throw new CenterUnavailableException("Could not save application '" + app.appKey() + "' in "
                + description() + ": its row kept appearing and vanishing", null);
    }

    @Override
    public ServiceApp saveIfMissing(ServiceApp app) {
        for (int attempt = 1; attempt <= 4; attempt++) {
            // an invalid stored row fails here: skipping it (as find does) would make the insert fail on its key
            ServiceApp stored = findValid(app.appKey());
            if (stored != null) {
                return stored;
            }
            if (insert(app)) {
                log.info("Registered ID service application {} in table {}", app, tableName());
                return app;
            }
        }
        throw new CenterUnavailableException("Could not register application '" + app.appKey() + "' in "
                + description() + ": its row kept appearing and vanishing", null);
    }

    private boolean update(ServiceApp app) {
        return jdbc().run("update application '" + app.appKey() + "'", s -> {
            try (PreparedStatement ps = s.prepare("UPDATE " + tableName() + " SET name = ?, secret = ?, "
                    + "previous_secret = ?, entities = ?, max_per_second = ?, enabled = ?, "
                    + "update_time = CURRENT_TIMESTAMP WHERE app_key = ?")) {
                ps.setString(1, app.name());
                ps.setString(2, app.secret());
                ps.setString(3, app.previousSecret());
                ps.setString(4, String.join(",", app.entities()));
                ps.setInt(5, app.maxPerSecond());
                ps.setBoolean(6, app.enabled());
                ps.setString(7, app.appKey());
                return ps.executeUpdate() == 1;
            } catch (SQLException e) {
                throw withheld(app, e);
            }
        });
    }

    private boolean insert(ServiceApp app) {
        String sql = "INSERT INTO " + tableName() + " (" + COLUMNS + ", created_at, update_time) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)";
        return jdbc().insertUnlessPresent("insert application '" + app.appKey() + "'", sql, ps -> {
            ps.setString(1, app.appKey());
            ps.setString(2, app.name());
            ps.setString(3, app.secret());
            ps.setString(4, app.previousSecret());
            ps.setString(5, String.join(",", app.entities()));
            ps.setInt(6, app.maxPerSecond());
            ps.setBoolean(7, app.enabled());
        }, e -> withheld(app, e));
    }

    /**
     * The failure of a write, without the database's own message: PostgreSQL, for one, quotes the whole failing
     * row ("Failing row contains (…)"), secrets included. SQLState and vendor code stay, so timeouts and lost
     * connections are still told apart and retried.
     */
    private static SQLException withheld(ServiceApp app, SQLException e) {
        if (e instanceof java.sql.SQLTransientException || e instanceof java.sql.SQLRecoverableException) {
            // timeouts and lost connections carry no row data, and JdbcRunner tells them apart by type
            return e;
        }
        return new SQLException("writing application '" + app.appKey() + "' failed with SQLState " + e.getSQLState()
                + ", vendor code " + e.getErrorCode() + "; the database's message is withheld because it may quote "
                + "the row, secret included", e.getSQLState(), e.getErrorCode());
    }

    /** Deletes the application's row; true when there was one. */
    public boolean delete(String appKey) {
        return jdbc().run("delete application '" + appKey + "'", s -> {
            try (PreparedStatement ps = s.prepare("DELETE FROM " + tableName() + " WHERE app_key = ?")) {
                ps.setString(1, appKey);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** The application of the current row, or null (logged) when the row is invalid. */
    private @Nullable ServiceApp toApp(ResultSet rs) throws SQLException {
        try {
            return read(rs);
        } catch (IdWorkerConfigurationException e) {
            // the message names the field and never the secret's value
            log.warn("Skipping application '{}' in table {}: {}", rs.getString(1), tableName(), e.getMessage());
            return null;
        }
    }

    /** @throws IdWorkerConfigurationException naming the first invalid field of the current row */
    private static ServiceApp read(ResultSet rs) throws SQLException {
        return ServiceApp.builder(rs.getString(1))
                .name(rs.getString(2))
                .secret(rs.getString(3))
                .previousSecret(rs.getString(4))
                .entities(Arrays.asList(rs.getString(5).split(",")))
                .maxPerSecond(rs.getInt(6))
                .enabled(rs.getBoolean(7))
                .build();
    }

    @Override
    public String toString() {
        return "JdbcAppStore[table=" + tableName() + "]";
    }
}
