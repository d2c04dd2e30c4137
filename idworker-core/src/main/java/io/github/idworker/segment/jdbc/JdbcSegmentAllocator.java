package io.github.idworker.segment.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentExhaustedException;
import io.github.idworker.segment.UnknownSegmentTagException;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Allocates segment ranges from one row per tag of a relational table (H2, MySQL, MariaDB, PostgreSQL) over a
 * plain {@link DataSource}. Every operation runs in its own committed transaction, apart from any transaction of
 * the caller; a connection handed out with auto-commit off is committed by hand.
 *
 * <p>Invariant: a tag's {@code max_id} only grows, and every number up to it has been handed out in exactly one
 * range, so ranges never overlap and together cover {@code (startAfter, max_id]}.
 *
 * <p>Allocate {@code (tag, step)}:
 * <ol>
 *   <li>In one transaction: {@code UPDATE t SET max_id = max_id + step, update_time = CURRENT_TIMESTAMP WHERE
 *       biz_tag = ? AND max_id <= Long.MAX_VALUE − step}. The update locks the row until commit, so concurrent
 *       allocators of the tag queue behind each other.</li>
 *   <li>In the same transaction: {@code SELECT max_id FROM t WHERE biz_tag = ?}. It reads this transaction's own
 *       update under every isolation level, so the range {@code (max_id − step, max_id]} is exactly the one the
 *       update produced. Commit.</li>
 *   <li>When the update changed no row, the same read tells why: a row whose {@code max_id} leaves no room → the
 *       next range would pass {@link Long#MAX_VALUE} ({@link SegmentExhaustedException}); a row with room → a
 *       concurrent creator inserted it after the update looked (each statement sees its own snapshot under
 *       READ COMMITTED), so go back to step 1; no row → the tag is unknown.</li>
 *   <li>Unknown tag: with auto-creation on, insert the row ({@code max_id = 0}) in its own transaction, treating
 *       a duplicate-key error as "another allocator created it first", and go back to step 1; with it off,
 *       {@link UnknownSegmentTagException} naming the tag and the table.</li>
 *   <li>A serialization failure or deadlock (SQLState {@code 40001}, {@code 40P01}) rolls back and retries the
 *       transaction, a few times at most.</li>
 * </ol>
 * Register {@code (tag, startAfter, step)}: read the row; when absent insert it with {@code max_id = startAfter};
 * a duplicate-key error means a concurrent registration won, which is success too. An existing row is never
 * changed.
 *
 * <p>DDL per database: {@code io/github/idworker/segment/schema-{h2,mysql,postgresql}.sql}, with {@code ${table}}
 * for the table name; {@link #createSchemaIfMissing()} runs it.
 */
public class JdbcSegmentAllocator implements SegmentAllocator {

    /** Default table name. */
    public static final String DEFAULT_TABLE = "idworker_segment";
    /** The property naming the table, quoted in configuration errors. */
    public static final String TABLE_PROPERTY = "idworker.segment.table";
    /** Longest tag the table holds. */
    public static final int MAX_TAG_LENGTH = 128;

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
    private static final int MAX_ATTEMPTS = 8;

    private final JdbcRunner jdbc;
    private final String table;
    private final boolean autoCreateTags;
    private volatile JdbcDialect dialect;

    /** An allocator over {@value #DEFAULT_TABLE} that refuses unknown tags. */
    public JdbcSegmentAllocator(DataSource dataSource) {
        this(dataSource, DEFAULT_TABLE, false);
    }

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param tableName the segment table, optionally schema-qualified
     * @param autoCreateTags whether {@link #allocate} creates an unknown tag (starting after 0) instead of failing
     * @throws IdWorkerConfigurationException when the table name is not a plain SQL identifier
     */
    public JdbcSegmentAllocator(DataSource dataSource, String tableName, boolean autoCreateTags) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
            throw new IdWorkerConfigurationException(TABLE_PROPERTY,
                    "must be an SQL identifier of letters, digits and '_', optionally schema-qualified, was '" + tableName + "'");
        }
        this.jdbc = new JdbcRunner(dataSource, tableName);
        this.table = tableName;
        this.autoCreateTags = autoCreateTags;
    }

    public String tableName() {
        return table;
    }

    /** Whether unknown tags are created on first use. */
    public boolean isAutoCreateTags() {
        return autoCreateTags;
    }

    /** The dialect of the database behind the data source (connects once to find out). */
    public JdbcDialect dialect() {
        JdbcDialect d = dialect;
        if (d == null) {
            d = jdbc.run("detect the database",
                    c -> JdbcDialect.fromProductName(c.getMetaData().getDatabaseProductName()));
            dialect = d;
        }
        return d;
    }

    /** The class-path resource holding the segment table's DDL for this database. */
    public String schemaResource() {
        return schemaResource(dialect());
    }

    /** The class-path resource holding the segment table's DDL for {@code dialect}. */
    public static String schemaResource(JdbcDialect dialect) {
        String name = switch (dialect) {
            case H2 -> "h2";
            case MYSQL -> "mysql";
            case POSTGRESQL -> "postgresql";
        };
        return "io/github/idworker/segment/schema-" + name + ".sql";
    }

    /** The DDL of the segment table for this database, with the table name filled in. */
    public String schemaSql() {
        String resource = schemaResource();
        try (InputStream in = JdbcSegmentAllocator.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", table);
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString().trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    /** Creates the segment table unless it exists. */
    public void createSchemaIfMissing() {
        String ddl = schemaSql();
        jdbc.run("create table " + table, c -> {
            try (Statement st = c.createStatement()) {
                st.execute(ddl);
            }
            return null;
        });
    }

    /**
     * Checks that the segment table exists and has the expected columns.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.segment.initialize-schema} when it does not
     * @throws CenterUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        Connection c = jdbc.connect("check table " + table);
        try (c; Statement st = c.createStatement()) {
            st.executeQuery("SELECT biz_tag, max_id, step, description, update_time FROM " + table + " WHERE 1 = 0")
                    .close();
        } catch (SQLException e) {
            throw new IdWorkerConfigurationException("idworker.segment.initialize-schema", "table '" + table
                    + "' is missing or lacks idworker's columns in " + jdbc.location() + " (" + e.getMessage().trim()
                    + "). Create it with the DDL in " + schemaResource()
                    + " (see the README) or set idworker.segment.initialize-schema=always", e);
        }
    }

    @Override
    public Segment allocate(String bizTag, int step) {
        checkTag(bizTag);
        if (step < 1) {
            throw new IllegalArgumentException("step must be at least 1, was " + step + " (segment tag '" + bizTag + "')");
        }
        boolean created = false;
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = jdbc.inTransaction("allocate " + step + " numbers of segment tag '" + bizTag + "'",
                    c -> update(c, bizTag, step));
            if (outcome.kind() == Kind.DONE) {
                return new Segment(bizTag, outcome.maxId(), step);
            }
            if (outcome.kind() == Kind.MISSING && !autoCreateTags) {
                throw new UnknownSegmentTagException(bizTag, "table " + table + " at " + jdbc.location());
            }
            if (attempt >= MAX_ATTEMPTS) {
                throw new CenterUnavailableException("Could not allocate " + step + " numbers of segment tag '" + bizTag
                        + "' in table " + table + " at " + jdbc.location() + " after " + attempt + " attempts: the row "
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
    private Outcome update(Connection c, String bizTag, int step) throws SQLException {
        long limit = Long.MAX_VALUE - step;
        int updated;
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table
                + " SET max_id = max_id + ?, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ? AND max_id <= ?")) {
            ps.setLong(1, step);
            ps.setString(2, bizTag);
            ps.setLong(3, limit);
            updated = ps.executeUpdate();
        }
        Long maxId = readMaxId(c, bizTag);
        if (updated == 1) {
            if (maxId == null) {
                throw new SQLException("row of segment tag '" + bizTag + "' not readable after its update");
            }
            return new Outcome(Kind.DONE, maxId);
        }
        if (updated > 1) {
            throw new SQLException("biz_tag is not the primary key of " + table + ": " + updated + " rows of tag '"
                    + bizTag + "' updated");
        }
        if (maxId == null) {
            return new Outcome(Kind.MISSING, 0);
        }
        if (maxId > limit) {
            throw new SegmentExhaustedException(bizTag, maxId, "a range of " + step + " more numbers would pass "
                    + Long.MAX_VALUE + " (table " + table + "). Use a new tag.");
        }
        return new Outcome(Kind.RACED, maxId);
    }

    private Long readMaxId(Connection c, String bizTag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT max_id FROM " + table + " WHERE biz_tag = ?")) {
            ps.setString(1, bizTag);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
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
    public boolean register(String bizTag, long startAfter, int defaultStep, String description) {
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
        Long max = jdbc.run("read segment tag '" + bizTag + "'", c -> readMaxId(c, bizTag));
        return max == null ? OptionalLong.empty() : OptionalLong.of(max);
    }

    private boolean insertIfAbsent(String bizTag, long startAfter, int step, String description) {
        String sql = "INSERT INTO " + table + " (biz_tag, max_id, step, description, update_time)"
                + " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";
        return jdbc.run("create segment tag '" + bizTag + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, bizTag);
                ps.setLong(2, startAfter);
                ps.setInt(3, step);
                ps.setString(4, description);
                ps.executeUpdate();
                return Boolean.TRUE;
            } catch (SQLException e) {
                if (JdbcRunner.isDuplicateKey(e)) {
                    return Boolean.FALSE;
                }
                throw e;
            }
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
        return "JdbcSegmentAllocator[table=" + table + ", autoCreateTags=" + autoCreateTags + "]";
    }
}
