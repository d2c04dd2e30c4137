package io.github.idworker.pool.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcStore;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolExhaustedException;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolRowMovedBackException;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.UnknownPoolEntityException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * ID pool entities and their durable offsets in one table of a relational database (H2, MySQL, MariaDB,
 * PostgreSQL) over a plain {@link DataSource}: {@code idworker_id_pool}, one row per entity holding its settings,
 * its {@code current_offset} and the environment it is pinned to. Every operation runs through
 * {@link JdbcRunner}: its own committed transaction at READ COMMITTED, bounded by the statement and network
 * timeouts, serialization failures retried with jitter.
 *
 * <p>Invariant: an entity's {@code current_offset} only grows (operators aside), no reservation starts below
 * {@code start_offset} or ends past the environment's {@link PoolEnvironment#maxOffset()}, and every offset
 * handed out belongs to exactly one reservation. Beside it the row keeps {@code reserved_to}, the end of the last
 * reservation, which every reservation raises in the same statement and nothing lowers: an operator who lowers
 * {@code current_offset} by hand leaves it behind, so a row whose next reservation would start at or below it is
 * refused ({@link PoolRowMovedBackException}) by every node instead of reserving offsets again — which Redis would
 * refuse only while it keeps the pool's high-water. {@code reserved_to} is NULL (not known yet) in rows written by
 * a version without the column or inserted by an operator; the next reservation sets it.
 *
 * <p>Reserve {@code chunks} chunks of an entity:
 * <ol>
 *   <li>In one transaction: {@code SELECT} the whole row {@code ... FOR UPDATE}: concurrent reservers queue on the
 *       row instead of losing the compare-and-set of step 3 over and over, and the settings returned with the reservation — the step above all — are the ones it was made
 *       with (its {@code current-offset} is the one read, before this reservation). No row →
 *       {@link UnknownPoolEntityException}; a row that is invalid or pinned to another environment →
 *       {@link IdWorkerConfigurationException}, nothing reserved.</li>
 *   <li>With {@code base = max(current_offset, start_offset − 1)} and
 *       {@code last = base + chunks × step}: when {@code base < reserved_to} the row was moved back
 *       ({@link PoolRowMovedBackException} naming entity, table and both values), nothing reserved; when
 *       {@code last} overflows or passes the environment's largest offset the entity is exhausted
 *       ({@link PoolExhaustedException}), nothing reserved.</li>
 *   <li>In the same transaction: {@code UPDATE ... SET current_offset = last, reserved_to = last} (and the
 *       environment, pinning a row that had none) {@code WHERE entity_key = ? AND current_offset = <read> AND
 *       (reserved_to IS NULL OR reserved_to <= last)} and the environment is still the one read — a
 *       compare-and-set, so the offsets {@code (base, last]} are this reservation's alone whatever the database's
 *       locking does, and {@code reserved_to} never goes down. Commit. No row changed → another reserver won: go back to step 1, at most
 *       {@value #MAX_ATTEMPTS} times.</li>
 * </ol>
 *
 * <p>Entities: {@link #register} inserts an entity unless a row of its key exists; the stored row wins (operators
 * tune the settings in the table), differences are logged. The environment is pinned by the first registration
 * or reservation and never changes afterwards, because the offsets already handed out became IDs under that
 * split and would collide with IDs of another.
 *
 * <p>DDL per database: {@code io/github/idworker/pool/jdbc/schema-{h2,mysql,postgresql}.sql};
 * {@link #createSchemaIfMissing()} also adds {@code reserved_to} to a table created before it existed (seeded
 * with each row's {@code current_offset}), and {@link #verifySchema()} refuses such a table, quoting the
 * statements that add it.
 */
public class JdbcPoolStore extends JdbcStore implements PoolStore {

    public static final String DEFAULT_TABLE = "idworker_id_pool";
    public static final String TABLE_PROPERTY = "idworker.pool.table";
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.pool.initialize-schema";

    private static final Logger log = LoggerFactory.getLogger(JdbcPoolStore.class);
    private static final int MAX_ATTEMPTS = 16;
    private static final String SETTING_COLUMNS = "entity_key, name, increasing_type, start_offset, step, "
            + "current_offset, max_per_request, max_per_second, threshold_percent, check_interval_ms, max_pool_size, "
            + "max_gap";
    private static final String COLUMNS = SETTING_COLUMNS + ", environment, environments";
    private static final Tables TABLES = Tables.of("pool/jdbc", DEFAULT_TABLE, TABLE_PROPERTY,
                    INITIALIZE_SCHEMA_PROPERTY, COLUMNS + ", created_at, update_time")
            .withAddedColumn("", "reserved_to", "current_offset", "the end of the last reservation, so that an "
                    + "entity whose current_offset was moved back is refused");

    /** Table {@value #DEFAULT_TABLE}, default timeouts. */
    public JdbcPoolStore(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE, JdbcTimeouts.defaults());
    }

    /**
     * @param tableName the pool table, optionally schema-qualified
     * @param timeouts how long any statement and any network read may take
     * @throws IdWorkerConfigurationException naming {@value #TABLE_PROPERTY} when the name is not a plain SQL
     *         identifier
     */
    public JdbcPoolStore(DataSource dataSource, String tableName, JdbcTimeouts timeouts) {
        super(dataSource, tableName, timeouts, TABLES);
    }

    /** The statements that add {@code reserved_to} to a pool table created before it existed. */
    public List<String> reservedToUpgradeSql() {
        return addedColumnSql("reserved_to");
    }

    @Override
    public PoolEntity register(PoolEntity entity, PoolEnvironment environment) {
        Objects.requireNonNull(environment, "environment");
        String key = entity.key();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Row row = readRow(key);
            if (row == null) {
                // a new entity starts before its first offset, whatever current-offset the caller's entity holds
                if (insert(entity, environment)) {
                    PoolEntity registered = entity.toBuilder().currentOffset(entity.startOffset() - 1).build();
                    log.info("Registered ID pool entity {} in table {}, environment {}", registered, tableName(),
                            environment);
                    return registered;
                }
                // another node inserted it first: read what it stored
                continue;
            }
            PoolEnvironment pinned = row.environment();
            if (pinned == null) {
                if (!pin(key, environment)) {
                    // pinned by another node since the read: check against what it pinned
                    continue;
                }
                log.info("Pinned ID pool entity '{}' in table {} to environment {}", key, tableName(), environment);
            } else {
                checkPinned(key, pinned, environment);
            }
            warnOfTunedSettings(row.entity(), entity);
            return row.entity();
        }
        throw new CenterUnavailableException("Could not register ID pool entity '" + key + "' in table " + tableName()
                + " at " + jdbc().location() + " after " + MAX_ATTEMPTS + " attempts: its row kept appearing and "
                + "vanishing; is something deleting rows?", null);
    }

    private void warnOfTunedSettings(PoolEntity held, PoolEntity configured) {
        if (held.sameSettings(configured)) {
            return;
        }
        List<String> tuned = new ArrayList<>();
        differs(tuned, "name", held.name(), configured.name());
        differs(tuned, "type", held.type(), configured.type());
        differs(tuned, "start-offset", held.startOffset(), configured.startOffset());
        differs(tuned, "step", held.step(), configured.step());
        differs(tuned, "max-per-request", held.maxPerRequest(), configured.maxPerRequest());
        differs(tuned, "max-per-second", held.maxPerSecond(), configured.maxPerSecond());
        differs(tuned, "threshold-percent", held.thresholdPercent(), configured.thresholdPercent());
        differs(tuned, "check-interval", held.checkInterval(), configured.checkInterval());
        differs(tuned, "max-pool-size", held.maxPoolSize(), configured.maxPoolSize());
        differs(tuned, "max-gap", held.maxGap(), configured.maxGap());
        log.warn("ID pool entity '{}' in table {} differs from its configuration; the table wins: {}", held.key(),
                tableName(), String.join(", ", tuned));
    }

    private static void differs(List<String> tuned, String field, Object held, Object configured) {
        if (!held.equals(configured)) {
            tuned.add(field + " " + held + " (configured " + configured + ")");
        }
    }

    /**
     * @throws IdWorkerConfigurationException naming {@link PoolEnvironment#ENVIRONMENT_PROPERTY} unless the row is
     *         pinned to {@code configured}
     */
    private void checkPinned(String key, PoolEnvironment pinned, PoolEnvironment configured) {
        if (!pinned.equals(configured)) {
            throw new IdWorkerConfigurationException(PoolEnvironment.ENVIRONMENT_PROPERTY, "the row of ID pool entity '"
                    + key + "' in table " + tableName() + " is pinned to environment " + pinned + ", configured "
                    + configured + ". Its offsets were handed out as IDs offset × " + pinned.environments() + " + "
                    + pinned.environment() + "; under another split the offsets still to come would give IDs that "
                    + "were handed out already, here or by another environment. Configure "
                    + PoolEnvironment.ENVIRONMENT_PROPERTY + "=" + pinned.environment() + " and "
                    + PoolEnvironment.ENVIRONMENTS_PROPERTY + "=" + pinned.environments()
                    + ", or use a new entity key.");
        }
    }

    /** Pins a row an operator inserted without an environment; false when another node pinned it first. */
    private boolean pin(String key, PoolEnvironment environment) {
        return jdbc().run("pin the environment of ID pool entity '" + key + "'", s -> {
            try (PreparedStatement ps = s.prepare("UPDATE " + tableName() + " SET environment = ?, environments = ? "
                    + "WHERE entity_key = ? AND environment IS NULL AND environments IS NULL")) {
                ps.setInt(1, environment.environment());
                ps.setInt(2, environment.environments());
                ps.setString(3, key);
                return ps.executeUpdate() == 1;
            }
        });
    }

    private boolean insert(PoolEntity entity, PoolEnvironment environment) {
        String sql = "INSERT INTO " + tableName() + " (" + COLUMNS + ", reserved_to, created_at, update_time) VALUES ("
                + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)";
        return jdbc().insertUnlessPresent("register ID pool entity '" + entity.key() + "'", sql, ps -> {
            ps.setString(1, entity.key());
            ps.setString(2, entity.name());
            ps.setString(3, entity.type().name());
            ps.setLong(4, entity.startOffset());
            ps.setInt(5, entity.step());
            ps.setLong(6, entity.startOffset() - 1);
            ps.setInt(7, entity.maxPerRequest());
            ps.setInt(8, entity.maxPerSecond());
            ps.setInt(9, entity.thresholdPercent());
            ps.setLong(10, entity.checkInterval().toMillis());
            ps.setLong(11, entity.maxPoolSize());
            ps.setInt(12, entity.maxGap());
            ps.setInt(13, environment.environment());
            ps.setInt(14, environment.environments());
            ps.setLong(15, entity.startOffset() - 1);
        });
    }

    @Override
    public Optional<PoolEntity> find(String key) {
        return Optional.ofNullable(readRow(key)).map(Row::entity);
    }

    @Override
    public List<PoolEntity> findAll() {
        return jdbc().run("read the ID pool entities", s -> {
            List<PoolEntity> entities = new ArrayList<>();
            try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + " FROM " + tableName()
                    + " ORDER BY entity_key");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    entities.add(toRow(rs).entity());
                }
            }
            return entities;
        });
    }

    /** The last offset reserved for the entity, as its row holds it now; empty when there is no row. */
    public OptionalLong currentOffset(String key) {
        @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable,
        // which NullAway checks only in JSpecify mode
        @Nullable Long current = jdbc().run("read the current offset of ID pool entity '" + key + "'", s -> {
            try (PreparedStatement ps = s.prepare("SELECT current_offset FROM " + tableName()
                    + " WHERE entity_key = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : null;
                }
            }
        });
        return current == null ? OptionalLong.empty() : OptionalLong.of(current);
    }

    @Override
    public PoolReservation reserve(String key, int chunks, PoolEnvironment environment) {
        if (chunks < 1) {
            throw new IllegalArgumentException("chunks must be at least 1, was " + chunks + " (ID pool entity '"
                    + key + "')");
        }
        Objects.requireNonNull(environment, "environment");
        String what = "reserve " + chunks + " chunks of ID pool entity '" + key + "'";
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            @SuppressWarnings("NullAway") // null for a lost compare-and-set; SqlWork's T may be nullable, which
            // NullAway checks only in JSpecify mode
            @Nullable Reserved r = jdbc().inTransaction(what, s -> reserveOnce(s, key, chunks, environment));
            if (r != null) {
                if (r.pinned()) {
                    log.info("Pinned ID pool entity '{}' in table {} to environment {}", key, tableName(), environment);
                }
                return r.reservation();
            }
        }
        throw new CenterUnavailableException("Could not " + what + " in " + description() + " after " + MAX_ATTEMPTS
                + " attempts: the row kept changing between statements", null);
    }

    /** A committed reservation, and whether it pinned the row to its environment. */
    private record Reserved(PoolReservation reservation, boolean pinned) {
    }

    /** One reservation transaction: the reservation, or {@code null} when its compare-and-set lost. */
    private @Nullable Reserved reserveOnce(JdbcRunner.Session s, String key, int chunks, PoolEnvironment environment)
            throws SQLException {
        @Nullable Row row;
        long reserved = Long.MIN_VALUE;
        try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + ", reserved_to FROM " + tableName()
                + " WHERE entity_key = ? FOR UPDATE")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                row = rs.next() ? toRow(rs) : null;
                if (row != null) {
                    long r = rs.getLong(15);
                    // NULL: not known yet, written by a version without the column or inserted by an operator
                    reserved = rs.wasNull() ? Long.MIN_VALUE : r;
                }
            }
        }
        if (row == null) {
            throw new UnknownPoolEntityException(key, description());
        }
        PoolEnvironment pinned = row.environment();
        if (pinned != null) {
            checkPinned(key, pinned, environment);
        }
        PoolEntity entity = row.entity();
        long read = entity.currentOffset();
        // an operator may have raised start_offset above current_offset: no offset below it is reserved
        long base = Math.max(read, entity.startOffset() - 1);
        if (base < reserved) {
            // current_offset went below the end of a reservation already made: those offsets' IDs may be in use
            throw new PoolRowMovedBackException(key, tableName(), jdbc().location(), read, reserved);
        }
        long last;
        try {
            last = Math.addExact(base, Math.multiplyExact((long) chunks, entity.step()));
        } catch (ArithmeticException overflow) {
            throw new PoolExhaustedException(key, base, environment.maxOffset());
        }
        if (last > environment.maxOffset()) {
            throw new PoolExhaustedException(key, base, environment.maxOffset());
        }
        // the environment is written and compared in the same statement: a row pinned by another reserver since
        // the read is not taken over
        String sql = "UPDATE " + tableName() + " SET current_offset = ?, reserved_to = ?, environment = ?, "
                + "environments = ?, update_time = CURRENT_TIMESTAMP WHERE entity_key = ? AND current_offset = ? AND "
                + "(reserved_to IS NULL"
                + " OR reserved_to <= ?) AND "
                + (pinned == null ? "environment IS NULL AND environments IS NULL" : "environment = ? AND environments = ?");
        try (PreparedStatement ps = s.prepare(sql)) {
            ps.setLong(1, last);
            ps.setLong(2, last);
            ps.setInt(3, environment.environment());
            ps.setInt(4, environment.environments());
            ps.setString(5, key);
            ps.setLong(6, read);
            ps.setLong(7, last);
            if (pinned != null) {
                ps.setInt(8, pinned.environment());
                ps.setInt(9, pinned.environments());
            }
            if (ps.executeUpdate() != 1) {
                return null;
            }
        }
        return new Reserved(new PoolReservation(entity, base + 1, last), pinned == null);
    }

    /** One row: the entity, and the environment it is pinned to ({@code null} before the first use). */
    private record Row(PoolEntity entity, @Nullable PoolEnvironment environment) {
    }

    @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable, which NullAway
    // checks only in JSpecify mode
    private @Nullable Row readRow(String key) {
        return jdbc().run("read ID pool entity '" + key + "'", s -> {
            try (PreparedStatement ps = s.prepare("SELECT " + COLUMNS + " FROM " + tableName()
                    + " WHERE entity_key = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? toRow(rs) : null;
                }
            }
        });
    }

    /**
     * The row at the cursor, checked as a configured entity is: an operator's edit that the pools could not run
     * with fails here, naming the property of the field, rather than in the middle of a refill.
     */
    private Row toRow(ResultSet rs) throws SQLException {
        String key = rs.getString(1);
        PoolEntity entity;
        try {
            entity = PoolEntity.builder(key)
                    .name(rs.getString(2))
                    .type(IncreasingType.parse(rs.getString(3), PoolEntity.property(key, "type")))
                    .startOffset(rs.getLong(4))
                    .step(rs.getInt(5))
                    .currentOffset(rs.getLong(6))
                    .maxPerRequest(rs.getInt(7))
                    .maxPerSecond(rs.getInt(8))
                    .thresholdPercent(rs.getInt(9))
                    .checkInterval(Duration.ofMillis(rs.getLong(10)))
                    .maxPoolSize(rs.getLong(11))
                    .maxGap(rs.getInt(12))
                    .build();
        } catch (IdWorkerConfigurationException e) {
            throw invalidRow(key, e);
        }
        int environment = rs.getInt(13);
        boolean noEnvironment = rs.wasNull();
        int environments = rs.getInt(14);
        boolean noEnvironments = rs.wasNull();
        if (noEnvironment && noEnvironments) {
            return new Row(entity, null);
        }
        if (noEnvironment || noEnvironments) {
            throw new IdWorkerConfigurationException(noEnvironment ? PoolEnvironment.ENVIRONMENT_PROPERTY
                    : PoolEnvironment.ENVIRONMENTS_PROPERTY, "the row of ID pool entity '" + key + "' in table "
                    + tableName() + " is invalid: environment and environments are both set or both NULL (not pinned "
                    + "yet), was "
                    + (noEnvironment ? "NULL" : environment) + "/" + (noEnvironments ? "NULL" : environments));
        }
        try {
            return new Row(entity, new PoolEnvironment(environment, environments));
        } catch (IdWorkerConfigurationException e) {
            throw invalidRow(key, e);
        }
    }

    private IdWorkerConfigurationException invalidRow(String key, IdWorkerConfigurationException e) {
        return new IdWorkerConfigurationException(e.getProperty(), "the row of ID pool entity '" + key + "' in table "
                + tableName() + " is invalid: " + e.getMessage(), e);
    }

    /** Deletes an entity's row: for tests and operators retiring an entity. */
    public void deleteEntity(String key) {
        jdbc().run("delete ID pool entity '" + key + "'", s -> {
            try (PreparedStatement ps = s.prepare("DELETE FROM " + tableName() + " WHERE entity_key = ?")) {
                ps.setString(1, key);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public String toString() {
        return "JdbcPoolStore[table=" + tableName() + "]";
    }
}
