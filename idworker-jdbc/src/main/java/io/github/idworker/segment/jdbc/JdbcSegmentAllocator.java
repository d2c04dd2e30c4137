package io.github.idworker.segment.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.jdbc.JdbcStore;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.SegmentRowMovedBackException;
import io.github.idworker.segment.UnknownSegmentTagException;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Allocates segment ranges from one row per tag of a relational table (H2, MySQL, MariaDB, PostgreSQL) over a
 * plain {@link DataSource}. Every operation runs through {@link JdbcRunner}: in its own committed transaction,
 * apart from any transaction of the caller (a connection handed out with auto-commit off is committed by hand),
 * at READ COMMITTED whatever level the pool hands out, and bounded by the statement and network timeouts.
 *
 * <p>Invariant: a tag's {@code max_id} only grows, and every number up to it has been handed out in exactly one
 * range, so ranges never overlap and together cover {@code (startAfter, max_id]}. The same row keeps
 * {@code high_water}, the end of the last range handed out (or {@code startAfter}), raised by the same statement
 * that raises {@code max_id}: an operator who lowers {@code max_id} alone leaves it behind, and a row whose
 * {@code max_id} lies below its {@code high_water} is refused by every allocator, whether or not it ever saw the
 * tag ({@link SegmentRowMovedBackException}). {@code NULL} means "not known yet": a row written by hand or by a
 * version without the column; the next allocation sets it.
 *
 * <p>Allocate {@code (tag, step)}:
 * <ol>
 *   <li>In one transaction: {@code UPDATE t SET high_water = max_id + step, max_id = max_id + step,
 *       update_time = CURRENT_TIMESTAMP WHERE biz_tag = ? AND max_id <= Long.MAX_VALUE − step AND (high_water IS
 *       NULL OR high_water <= max_id)}. The update locks the row until commit, so concurrent allocators of the tag
 *       queue behind each other; each re-checks the condition on the row the one before it committed.</li>
 *   <li>In the same transaction: {@code SELECT max_id, high_water FROM t WHERE biz_tag = ?}. It reads this transaction's own
 *       update under every isolation level, so the range {@code (max_id − step, max_id]} is exactly the one the
 *       update produced. Commit.</li>
 *   <li>When the update changed no row, the same read tells why: a row whose {@code max_id} lies below its
 *       {@code high_water} → it was moved back ({@link SegmentRowMovedBackException} naming tag, table and both
 *       values; nothing changed); a row whose {@code max_id} leaves no room → the
 *       next range would pass {@link Long#MAX_VALUE} ({@link SegmentExhaustedException}); a row with room → a
 *       concurrent creator inserted it after the update looked (each statement sees its own snapshot under
 *       READ COMMITTED), so go back to step 1; no row → the tag is unknown.</li>
 *   <li>Unknown tag: with auto-creation on, insert the row ({@code max_id = 0}) in its own transaction, treating
 *       a duplicate-key error as "another allocator created it first", and go back to step 1; with it off,
 *       {@link UnknownSegmentTagException} naming the tag and the table.</li>
 *   <li>A serialization failure or deadlock (SQLState {@code 40001}, {@code 40P01}, MySQL/MariaDB error
 *       {@code 1020}) rolls back and retries the transaction after a random pause, a few times at most.</li>
 * </ol>
 * Register {@code (tag, startAfter, step)}: read the row; when absent insert it with {@code max_id} and
 * {@code high_water} both {@code startAfter};
 * a duplicate-key error means a concurrent registration won, which is success too. An existing row is never
 * changed.
 *
 * <p>DDL per database: {@code io/github/idworker/segment/jdbc/schema-{h2,mysql,postgresql}.sql}, plain DDL for
 * {@value #DEFAULT_TABLE}; {@link #createSchemaIfMissing()} runs it with the configured table name put in, and
 * adds {@code high_water} to a table created before it existed (seeded with each row's {@code max_id});
 * {@link #verifySchema()} refuses a table without it, quoting the statements that add it.
 */
public class JdbcSegmentAllocator extends JdbcStore implements SegmentAllocator {

    /** Default table name. */
    public static final String DEFAULT_TABLE = "idworker_segment";
    /** The property naming the table, quoted in configuration errors. */
    public static final String TABLE_PROPERTY = "idworker.segment.table";
    /** The property that lets the application create the table, quoted when it is missing. */
    public static final String INITIALIZE_SCHEMA_PROPERTY = "idworker.segment.initialize-schema";
    /** Longest tag the table holds. */
    public static final int MAX_TAG_LENGTH = 128;

    private static final int MAX_ATTEMPTS = 8;
    private static final String FOLDER = "segment/jdbc";
    private static final Tables TABLES = Tables.of(FOLDER, DEFAULT_TABLE, TABLE_PROPERTY,
                    INITIALIZE_SCHEMA_PROPERTY, "biz_tag, max_id, step, description, update_time")
            .withAddedColumn("", "high_water", "max_id",
                    "the end of the last range handed out, so that a row whose max_id was moved back is refused");

    private final boolean autoCreateTags;

    /** An allocator over {@value #DEFAULT_TABLE} that refuses unknown tags. */
    public JdbcSegmentAllocator(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE, false);
    }

    /** An allocator over {@code tableName} with the default timeouts ({@link JdbcTimeouts#defaults()}). */
    public JdbcSegmentAllocator(DataSource dataSource, String tableName, boolean autoCreateTags) {
        this(dataSource, tableName, autoCreateTags, JdbcTimeouts.defaults());
    }

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param tableName the segment table, optionally schema-qualified
     * @param autoCreateTags whether {@link #allocate} creates an unknown tag (starting after 0) instead of failing
     * @param timeouts how long any statement and any network read may take
     * @throws IdWorkerConfigurationException when the table name is not a plain SQL identifier
     */
    public JdbcSegmentAllocator(DataSource dataSource, String tableName, boolean autoCreateTags, JdbcTimeouts timeouts) {
        super(dataSource, tableName, timeouts, TABLES);
        this.autoCreateTags = autoCreateTags;
    }

    /** Whether unknown tags are created on first use. */
    public boolean isAutoCreateTags() {
        return autoCreateTags;
    }

    /** The class-path resource holding the segment table's DDL for {@code dialect}. */
    public static String schemaResource(JdbcDialect dialect) {
        return dialect.schemaResource(FOLDER);
    }

    /** The DDL of the segment table for this database, with the table name filled in. */
    public String schemaSql() {
        return String.join(";\n\n", schemaStatements());
    }

    /** The statements that add {@code high_water} to a segment table created before it existed. */
    public List<String> highWaterUpgradeSql() {
        return addedColumnSql("high_water");
    }

    @Override
    public Segment allocate(String bizTag, int step) {
        checkTag(bizTag);
        if (step < 1) {
            throw new IllegalArgumentException("step must be at least 1, was " + step + " (segment tag '" + bizTag + "')");
        }
        boolean created = false;
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = jdbc().inTransaction("allocate " + step + " numbers of segment tag '" + bizTag + "'",
                    s -> update(s, bizTag, step));
            if (outcome.kind() == Kind.DONE) {
                return new Segment(bizTag, outcome.maxId(), step);
            }
            if (outcome.kind() == Kind.MISSING && !autoCreateTags) {
                throw new UnknownSegmentTagException(bizTag, description());
            }
            if (attempt >= MAX_ATTEMPTS) {
                throw new CenterUnavailableException("Could not allocate " + step + " numbers of segment tag '" + bizTag
                        + "' in " + description() + " after " + attempt + " attempts: the row "
                        + (created ? "disappeared each time after it was created; is something deleting it?"
                                : "kept changing between statements"), null);
            }
            if (outcome.kind() == Kind.MISSING) {
                insertIfAbsent(bizTag, 0, step, "created on first use");
                created = true;
            }
        }
    }

    /** What one allocation transaction found. */
    private enum Kind {
        /** The range was taken; {@code maxId} is its end. */
        DONE,
        /** No row of the tag. */
        MISSING,
        /** No row changed, yet one with room was found: a concurrent creator inserted it after the update looked. */
        RACED
    }

    private record Outcome(Kind kind, long maxId) {
    }

    /** The allocation's transaction. */
    private Outcome update(JdbcRunner.Session s, String bizTag, int step) throws SQLException {
        long limit = Long.MAX_VALUE - step;
        int updated;
        // high_water is assigned first: MySQL and MariaDB evaluate SET left to right with the values assigned so
        // far, PostgreSQL and H2 with the row's old ones; in this order both read the old max_id in both places
        try (PreparedStatement ps = s.prepare("UPDATE " + tableName()
                + " SET high_water = max_id + ?, max_id = max_id + ?, update_time = CURRENT_TIMESTAMP"
                + " WHERE biz_tag = ? AND max_id <= ?"
                + " AND (high_water IS NULL OR high_water <= max_id)")) {
            ps.setLong(1, step);
            ps.setLong(2, step);
            ps.setString(3, bizTag);
            ps.setLong(4, limit);
            updated = ps.executeUpdate();
        }
        long[] row = readRow(s, bizTag);
        Long maxId = row == null ? null : row[0];
        if (updated == 1) {
            if (maxId == null) {
                throw new SQLException("row of segment tag '" + bizTag + "' not readable after its update");
            }
            return new Outcome(Kind.DONE, maxId);
        }
        if (updated > 1) {
            throw new SQLException("biz_tag is not the primary key of " + tableName() + ": " + updated
                    + " rows of tag '" + bizTag + "' updated");
        }
        if (row == null || maxId == null) { // both null together
            return new Outcome(Kind.MISSING, 0);
        }
        if (row[1] > maxId) {
            throw new SegmentRowMovedBackException(bizTag, tableName(), jdbc().location(), maxId, row[1]);
        }
        if (maxId > limit) {
            throw new SegmentExhaustedException(bizTag, maxId, "a range of " + step + " more numbers would pass "
                    + Long.MAX_VALUE + " (table " + tableName() + "). Use a new tag.");
        }
        return new Outcome(Kind.RACED, maxId);
    }

    /** The tag's {@code max_id} and {@code high_water} ({@link Long#MIN_VALUE} when not known yet), or null. */
    private long @Nullable [] readRow(JdbcRunner.Session s, String bizTag) throws SQLException {
        try (PreparedStatement ps = s.prepare("SELECT max_id, high_water FROM " + tableName() + " WHERE biz_tag = ?")) {
            ps.setString(1, bizTag);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long maxId = rs.getLong(1);
                long highWater = rs.getLong(2);
                return new long[] {maxId, rs.wasNull() ? Long.MIN_VALUE : highWater};
            }
        }
    }

    @Override
    public boolean register(String bizTag, long startAfter, int defaultStep) {
        return register(bizTag, startAfter, defaultStep, null);
    }

    /**
     * {@link #register(String, long, int)} with a description for operators, at most 256 characters.
     */
    public boolean register(String bizTag, long startAfter, int defaultStep, @Nullable String description) {
        checkTag(bizTag);
        if (startAfter < 0) {
            throw new IllegalArgumentException("startAfter must be zero or more, was " + startAfter
                    + " (segment tag '" + bizTag + "')");
        }
        if (defaultStep < 1) {
            throw new IllegalArgumentException("defaultStep must be at least 1, was " + defaultStep
                    + " (segment tag '" + bizTag + "')");
        }
        if (description != null && description.length() > 256) {
            throw new IllegalArgumentException("description must be at most 256 characters (segment tag '" + bizTag + "')");
        }
        if (maxId(bizTag).isPresent()) {
            return false;
        }
        return insertIfAbsent(bizTag, startAfter, defaultStep, description);
    }

    /** The tag's current high-water: every number up to it has been handed out. Empty for an unknown tag. */
    public OptionalLong maxId(String bizTag) {
        checkTag(bizTag);
        @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable,
        // which NullAway checks only in JSpecify mode
        long @Nullable [] row = jdbc().run("read segment tag '" + bizTag + "'", s -> readRow(s, bizTag));
        return row == null ? OptionalLong.empty() : OptionalLong.of(row[0]);
    }

    private boolean insertIfAbsent(String bizTag, long startAfter, int step, @Nullable String description) {
        String sql = "INSERT INTO " + tableName() + " (biz_tag, max_id, high_water, step, description, update_time)"
                + " VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP)";
        return jdbc().insertUnlessPresent("create segment tag '" + bizTag + "'", sql, ps -> {
            ps.setString(1, bizTag);
            ps.setLong(2, startAfter);
            ps.setLong(3, startAfter);
            ps.setInt(4, step);
            ps.setString(5, description);
        });
    }

    private static void checkTag(String bizTag) {
        if (bizTag == null || bizTag.isBlank()) {
            throw new IllegalArgumentException("segment tag must not be blank, was '" + bizTag + "'");
        }
        if (bizTag.length() > MAX_TAG_LENGTH) {
            throw new IllegalArgumentException("segment tag must be at most " + MAX_TAG_LENGTH + " characters, was '"
                    + bizTag + "'");
        }
    }

    @Override
    public String toString() {
        return "JdbcSegmentAllocator[table=" + tableName() + ", autoCreateTags=" + autoCreateTags + "]";
    }
}
