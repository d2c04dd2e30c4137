package io.github.idworker.serial.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcStore;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.serial.UnknownSerialRuleException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Serial rules and their durable high-waters in two tables of a relational database (H2, MySQL, MariaDB,
 * PostgreSQL) over a plain {@link DataSource}: {@code idworker_serial_rule}, one row per rule, and
 * {@code idworker_serial_rule_period}, one row per (rule, period). Every operation runs through
 * {@link JdbcRunner}: its own committed transaction at READ COMMITTED, bounded by the statement and network
 * timeouts, serialization failures retried with jitter.
 *
 * <p>Invariant: a period's {@code high_water} only grows (operators aside) and never passes the rule's
 * {@code max_number}; every number up to it was handed out in exactly one reservation. Beside it the row keeps
 * {@code reserved_to}, the end of the last reservation, which every reservation raises in the same statement and
 * nothing lowers: an operator who lowers {@code high_water} by hand leaves it behind, so a row whose next
 * reservation would start at or below it is refused ({@link SerialPeriodMovedBackException}) by every node, a
 * fresh one included, instead of handing out numbers again. {@code reserved_to} is NULL (not known yet) in rows
 * written by a version without the column; the next reservation sets it.
 *
 * <p>Reserve {@code count} numbers of (rule, period):
 * <ol>
 *   <li>In one transaction: read the rule's {@code start_number} and {@code max_number} from the rule table and
 *       take the stricter of them and the caller's rule (an operator's lowered max counts at once);
 *       {@code SELECT high_water, reserved_to ... FOR UPDATE} (concurrent reservers queue on the row); with
 *       {@code base = max(high_water, start − 1)}: when {@code base < reserved_to} the row was moved back
 *       ({@link SerialPeriodMovedBackException} naming rule, period, table and both values; nothing changes); with
 *       {@code new = min(base + count, max)}; when {@code base >= max} the period is exhausted
 *       ({@link SerialExhaustedException}).</li>
 *   <li>In the same transaction: {@code UPDATE ... SET high_water = new, reserved_to = new WHERE ... AND
 *       high_water = <read> AND (reserved_to IS NULL OR reserved_to <= new)} — a compare-and-set, so the range
 *       {@code (base, new]} is this reservation's alone whatever the database's locking does, and
 *       {@code reserved_to} never goes down. Commit. No row changed → another reserver won: go back to step 1.</li>
 *   <li>No row yet → insert it with {@code high_water = reserved_to = start − 1} in its own transaction (a
 *       duplicate key means another node created it first) and go back to step 1.</li>
 * </ol>
 *
 * <p>Rules: {@link #register} inserts a rule unless one of that name exists; the stored row wins (operators may
 * tune {@code max_number}, {@code critical} and the batch bounds in the table), but a row whose shape — prefix,
 * date pattern, width, reset or zone — differs from the configured rule fails startup naming the property,
 * because changing the shape could print a string of the past again.
 *
 * <p>DDL per database: {@code io/github/idworker/serial/jdbc/schema-{h2,mysql,postgresql}.sql};
 * {@link #createSchemaIfMissing()} also adds {@code reserved_to} to a period table created before it existed
 * (seeded with each row's {@code high_water}), and {@link #verifySchema()} refuses such a table, quoting the
 * statements that add it.
 */
public class JdbcSerialStore extends JdbcStore implements SerialStore {

    public static final String DEFAULT_TABLE = "idworker_serial_rule";
    public static final String TABLE_PROPERTY = "idworker.serial.table";
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.serial.initialize-schema";
    /** The period table is named after the rule table with this suffix. */
    public static final String PERIOD_TABLE_SUFFIX = "_period";

    private static final Logger log = LoggerFactory.getLogger(JdbcSerialStore.class);
    private static final int MAX_ATTEMPTS = 16;
    private static final String RULE_COLUMNS = "rule_name, prefix, date_pattern, width, start_number, max_number, "
            + "reset_period, zone_id, critical, min_batch, max_batch";
    private static final Tables TABLES = Tables.of("serial/jdbc", DEFAULT_TABLE, TABLE_PROPERTY,
                    INITIALIZE_SCHEMA_PROPERTY, RULE_COLUMNS + ", shape, created_at")
            .with(PERIOD_TABLE_SUFFIX, "rule_name, period, high_water, update_time")
            .withAddedColumn(PERIOD_TABLE_SUFFIX, "reserved_to", "high_water",
                    "the end of the last reservation, so that a period whose high_water was moved back is refused");

    private final String periodTable;

    /** Tables {@value #DEFAULT_TABLE} and {@value #DEFAULT_TABLE}{@value #PERIOD_TABLE_SUFFIX}, default timeouts. */
    public JdbcSerialStore(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE, JdbcTimeouts.defaults());
    }

    /**
     * @param tableName the rule table, optionally schema-qualified; the period table is named after it with
     *        {@value #PERIOD_TABLE_SUFFIX}
     * @param timeouts how long any statement and any network read may take
     * @throws IdWorkerConfigurationException naming {@value #TABLE_PROPERTY} when the name is not a plain SQL
     *         identifier
     */
    public JdbcSerialStore(DataSource dataSource, String tableName, JdbcTimeouts timeouts) {
        super(dataSource, tableName, timeouts, TABLES);
        this.periodTable = tableName + PERIOD_TABLE_SUFFIX;
    }

    public String periodTableName() {
        return periodTable;
    }

    /** The statements that add {@code reserved_to} to a period table created before it existed. */
    public List<String> reservedToUpgradeSql() {
        return addedColumnSql("reserved_to");
    }

    @Override
    public SerialRule register(SerialRule rule) {
        Optional<SerialRule> stored = find(rule.name());
        if (stored.isEmpty()) {
            checkPeriodsFit(rule);
            if (insertRule(rule)) {
                log.info("Registered serial rule {} in table {}", rule, tableName());
                return rule;
            }
            stored = find(rule.name());
            if (stored.isEmpty()) {
                throw new CenterUnavailableException("Serial rule '" + rule.name() + "' vanished from "
                        + description() + " right after another node created it; is something deleting rows?", null);
            }
        }
        SerialRule held = stored.get();
        List<String> shape = held.shapeDifferences(rule);
        if (!shape.isEmpty()) {
            String field = shape.get(0);
            throw new IdWorkerConfigurationException(SerialRule.property(rule.name(), field), "is '"
                    + rule.valueOf(field) + "' but table " + tableName() + " holds '" + held.valueOf(field)
                    + "' for rule '" + rule.name() + "' (differing: " + String.join(", ", shape)
                    + "). A rule's prefix, date-pattern, "
                    + "width, reset and zone never change, because strings handed out before could be printed again: "
                    + "configure what the table holds, or add a new rule with a prefix of its own.");
        }
        List<String> tuned = new ArrayList<>();
        for (String field : List.of("start", "max", "critical", "min-batch", "max-batch")) {
            if (!held.valueOf(field).equals(rule.valueOf(field))) {
                tuned.add(field + " " + held.valueOf(field) + " (configured " + rule.valueOf(field) + ")");
            }
        }
        if (!tuned.isEmpty()) {
            log.warn("Serial rule '{}' in table {} differs from its configuration; the table wins: {}", rule.name(),
                    tableName(), String.join(", ", tuned));
        }
        return held;
    }

    @Override
    @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable, which NullAway
    // checks only in JSpecify mode
    public Optional<SerialRule> find(String name) {
        return Optional.ofNullable(jdbc().run("read serial rule '" + name + "'", s -> {
            try (PreparedStatement ps = s.prepare("SELECT " + RULE_COLUMNS + ", shape FROM " + tableName()
                    + " WHERE rule_name = ?")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? toRule(rs) : null;
                }
            }
        }));
    }

    /** Every rule of the table, by name. */
    public List<SerialRule> findAll() {
        return jdbc().run("read the serial rules", s -> {
            List<SerialRule> rules = new ArrayList<>();
            try (PreparedStatement ps = s.prepare("SELECT " + RULE_COLUMNS + ", shape FROM " + tableName()
                    + " ORDER BY rule_name");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rules.add(toRule(rs));
                }
            }
            return rules;
        });
    }

    /**
     * The rule of the current row, checked against the shape text stored with it: a row whose prefix, date
     * pattern, width, reset or zone was edited after numbers were handed out could print old strings again.
     * A row an operator inserted without a shape text gets its shape pinned on first read.
     */
    private SerialRule toRule(ResultSet rs) throws SQLException {
        String name = rs.getString(1);
        SerialRule rule;
        try {
            rule = SerialRule.builder(name)
                    .prefix(rs.getString(2))
                    .datePattern(rs.getString(3))
                    .width(rs.getInt(4))
                    .start(rs.getLong(5))
                    .max(rs.getLong(6))
                    .reset(rs.getString(7))
                    .zone(rs.getString(8))
                    .critical(rs.getInt(9))
                    .minBatch(rs.getInt(10))
                    .maxBatch(rs.getInt(11))
                    .build();
        } catch (IdWorkerConfigurationException e) {
            throw new IdWorkerConfigurationException(e.getProperty(), "the row of rule '" + name + "' in table "
                    + tableName() + " is invalid: " + e.getMessage(), e);
        }
        String shape = rs.getString(12);
        if (shape == null) {
            checkPeriodsFit(rule);
            pinShape(rule);
        } else {
            List<String> edited = rule.shapeDifferences(shape);
            if (!edited.isEmpty()) {
                String field = edited.get(0);
                throw new IdWorkerConfigurationException(SerialRule.property(name, field), "the row of rule '" + name
                        + "' in table " + tableName() + " was edited: its " + String.join(", ", edited)
                        + " no longer match the shape it handed out numbers with (" + shape
                        + "), so it could print a string of the "
                        + "past again. Put the row back, or add a new rule.");
            }
        }
        return rule;
    }

    /**
     * Refuses a rule whose shape cannot be checked against its past: the rule table has no row for it (deleted or
     * lost), or a row without its shape text, yet the period table holds periods of it that the rule's reset would
     * never name. Numbering would then start again at {@code start} in periods of another form, and the strings
     * could be ones printed before (a daily rule turned monthly prints the same date with numbers from 1 again).
     */
    private void checkPeriodsFit(SerialRule rule) {
        // one period of each key length is enough: the forms differ in length
        String sql = "SELECT MIN(period) FROM " + periodTable + " WHERE rule_name = ? GROUP BY CHAR_LENGTH(period)";
        List<String> samples = jdbc().run("read the periods of serial rule '" + rule.name() + "'", s -> {
            List<String> keys = new ArrayList<>();
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setString(1, rule.name());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        keys.add(rs.getString(1));
                    }
                }
            }
            return keys;
        });
        for (String key : samples) {
            SerialReset kept = SerialReset.ofPeriod(key);
            if (kept != rule.reset()) {
                throw new IdWorkerConfigurationException(SerialRule.property(rule.name(), "reset"), "is '"
                        + rule.reset().propertyValue() + "' but table " + periodTable + " holds periods of rule '"
                        + rule.name() + "' kept " + (kept == null ? "in another form" : "with reset '"
                        + kept.propertyValue() + "'") + " (period '" + key + "'), and table " + tableName() + " has no "
                        + "shape of the rule to check against (its row is gone or has no shape), so numbering would "
                        + "start again at its start and could print strings of the past again. Put the rule's row "
                        + "back, configure the rule as it was, or add a new rule with a prefix of its own.");
            }
        }
    }

    private void pinShape(SerialRule rule) {
        jdbc().run("pin the shape of serial rule '" + rule.name() + "'", s -> {
            try (PreparedStatement ps = s.prepare("UPDATE " + tableName()
                    + " SET shape = ? WHERE rule_name = ? AND shape IS NULL")) {
                ps.setString(1, rule.shapeText());
                ps.setString(2, rule.name());
                return ps.executeUpdate();
            }
        });
    }

    private boolean insertRule(SerialRule rule) {
        String sql = "INSERT INTO " + tableName() + " (" + RULE_COLUMNS + ", shape, created_at) VALUES (?, ?, ?, ?, ?, "
                + "?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)";
        return jdbc().insertUnlessPresent("register serial rule '" + rule.name() + "'", sql, ps -> {
            ps.setString(1, rule.name());
            ps.setString(2, rule.prefix());
            ps.setString(3, rule.datePattern());
            ps.setInt(4, rule.width());
            ps.setLong(5, rule.start());
            ps.setLong(6, rule.max());
            ps.setString(7, rule.reset().propertyValue());
            ps.setString(8, rule.zone().getId());
            ps.setInt(9, rule.critical());
            ps.setInt(10, rule.minBatch());
            ps.setInt(11, rule.maxBatch());
            ps.setString(12, rule.shapeText());
        });
    }

    @Override
    public SerialRange reserve(SerialRule rule, String period, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count + " (serial rule '"
                    + rule.name() + "')");
        }
        String what = "reserve " + count + " numbers of serial rule '" + rule.name() + "' in period " + period;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Reservation r = jdbc().inTransaction(what, s -> reserveOnce(s, rule, period, count));
            if (r.range() != null) {
                return r.range();
            }
            if (r.missing()) {
                insertPeriod(rule, period, r.start());
            }
        }
        throw new CenterUnavailableException("Could not " + what + " in table " + periodTable + " at "
                + jdbc().location() + " after " + MAX_ATTEMPTS + " attempts: the row kept changing between statements",
                null);
    }

    /** What one reservation transaction found: a range, a missing row, or a lost compare-and-set. */
    private record Reservation(@Nullable SerialRange range, boolean missing, long start) {
    }

    private Reservation reserveOnce(JdbcRunner.Session s, SerialRule rule, String period, int count) throws SQLException {
        // start and max as the table holds them now, in this transaction: an operator who lowered max is obeyed at
        // once, whatever rule the caller read earlier
        Limits limits = readLimits(s, rule.name());
        if (limits == null) {
            throw new UnknownSerialRuleException(rule.name(), description());
        }
        long[] row = readRow(s, rule.name(), period, true);
        if (row == null) {
            return new Reservation(null, true, limits.start());
        }
        long read = row[0];
        // the stricter of the table and the caller's rule: a caller that read the rule before an operator lowered
        // max (or raised start) cannot pass the new bounds, and one that holds a lower max is obeyed too
        long start = Math.max(limits.start(), rule.start());
        long max = Math.min(limits.max(), rule.max());
        long base = Math.max(read, start - 1);
        if (base < row[1]) {
            // high_water went below the end of a reservation already made: those numbers may be in use
            throw new SerialPeriodMovedBackException(rule.name(), period, periodTable, jdbc().location(), read, row[1]);
        }
        if (base >= max) {
            throw new SerialExhaustedException(rule.name(), period, max);
        }
        long last = Math.min(max, base + count);
        try (PreparedStatement ps = s.prepare("UPDATE " + periodTable + " SET high_water = ?, reserved_to = ?, "
                + "update_time = CURRENT_TIMESTAMP WHERE rule_name = ? AND period = ? AND high_water = ? AND "
                + "(reserved_to IS NULL OR reserved_to <= ?)")) {
            ps.setLong(1, last);
            ps.setLong(2, last);
            ps.setString(3, rule.name());
            ps.setString(4, period);
            ps.setLong(5, read);
            ps.setLong(6, last);
            if (ps.executeUpdate() != 1) {
                return new Reservation(null, false, limits.start());
            }
        }
        return new Reservation(new SerialRange(rule.name(), period, base + 1, last), false, limits.start());
    }

    /** A rule's number range as the table holds it. */
    private record Limits(long start, long max) {
    }

    private @Nullable Limits readLimits(JdbcRunner.Session s, String rule) throws SQLException {
        try (PreparedStatement ps = s.prepare("SELECT start_number, max_number FROM " + tableName()
                + " WHERE rule_name = ?")) {
            ps.setString(1, rule);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Limits(rs.getLong(1), rs.getLong(2)) : null;
            }
        }
    }

    /** The period's {@code high_water} and {@code reserved_to} ({@link Long#MIN_VALUE} when not known yet), or null. */
    private long @Nullable [] readRow(JdbcRunner.Session s, String rule, String period, boolean lock)
            throws SQLException {
        try (PreparedStatement ps = s.prepare("SELECT high_water, reserved_to FROM " + periodTable
                + " WHERE rule_name = ? AND period = ?" + (lock ? " FOR UPDATE" : ""))) {
            ps.setString(1, rule);
            ps.setString(2, period);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long highWater = rs.getLong(1);
                long reserved = rs.getLong(2);
                return new long[] {highWater, rs.wasNull() ? Long.MIN_VALUE : reserved};
            }
        }
    }

    private void insertPeriod(SerialRule rule, String period, long start) {
        String sql = "INSERT INTO " + periodTable + " (rule_name, period, high_water, reserved_to, update_time) "
                + "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";
        jdbc().insertUnlessPresent("open period " + period + " of serial rule '" + rule.name() + "'", sql, ps -> {
            ps.setString(1, rule.name());
            ps.setString(2, period);
            ps.setLong(3, start - 1);
            ps.setLong(4, start - 1);
        });
    }

    @Override
    public OptionalLong highWater(String rule, String period) {
        @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable,
        // which NullAway checks only in JSpecify mode
        long @Nullable [] row = jdbc().run("read period " + period + " of serial rule '" + rule + "'",
                s -> readRow(s, rule, period, false));
        return row == null ? OptionalLong.empty() : OptionalLong.of(row[0]);
    }

    /** Deletes a rule and all its periods: for tests and operators retiring a rule. */
    @SuppressWarnings("NullAway") // the work returns null, as it has no result; SqlWork's T may be nullable, which
    // NullAway checks only in JSpecify mode
    public void deleteRule(String rule) {
        jdbc().inTransaction("delete serial rule '" + rule + "'", s -> {
            for (String t : new String[] {periodTable, tableName()}) {
                try (PreparedStatement ps = s.prepare("DELETE FROM " + t + " WHERE rule_name = ?")) {
                    ps.setString(1, rule);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public String toString() {
        return "JdbcSerialStore[table=" + tableName() + ", " + periodTable + "]";
    }
}
