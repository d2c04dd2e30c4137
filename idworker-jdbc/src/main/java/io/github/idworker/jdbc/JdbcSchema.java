package io.github.idworker.jdbc;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables of one JDBC centre: their DDL per database, read from
 * {@code io/github/idworker/<folder>/schema-<database>.sql}, and the check that they exist with the columns the
 * centre uses. Shared by every JDBC store, so all load and check their tables alike.
 *
 * <p>The shipped files are plain DDL for the default table names, so {@code spring.sql.init} or Flyway can run
 * them as they are. For a custom name, every identifier that starts with the default name (the main table and
 * the tables named after it, such as {@code idworker_worker_slot_ns}) gets the custom name instead; nothing
 * else in the file starts with it. A file may hold several statements, each ended by {@code ;} at the end of a
 * line; lines starting with {@code --} are comments.
 *
 * <p>A column added to a table after its first release ({@link AddedColumn}) is not added by
 * {@code CREATE TABLE IF NOT EXISTS} to a table that already exists: {@link #addColumnIfMissing} adds it and fills
 * it in for the existing rows, and {@link #verifyColumn} refuses a table without it, quoting those statements.
 */
public final class JdbcSchema {

    /** An SQL identifier of letters, digits and '_', optionally schema-qualified, each part at most 63 long. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
    /** Held while {@link #create} or {@link #addColumnIfMissing} runs: one at a time per JVM. */
    private static final Object ALTER_LOCK = new Object();
    /** How often {@link #addColumnIfMissing} tries its {@code ALTER TABLE}. */
    private static final int ADD_COLUMN_ATTEMPTS = 5;
    /** PostgreSQL's identifier limit; longer names are cut silently there. */
    private static final int MAX_IDENTIFIER = 63;

    private final String folder;
    private final String defaultTable;
    private final String table;
    private final String initializeSchemaProperty;
    private final Map<String, String> columnsByTable;

    /**
     * @param folder the resource folder under {@code io/github/idworker/}, the store's package, e.g. {@code lease/jdbc}
     * @param defaultTable the main table's name in the shipped DDL
     * @param table the main table's name to create and check, put in for {@code defaultTable}
     * @param initializeSchemaProperty the property that makes the application create the tables, named when
     *        they are missing
     * @param columnsByTable every table of the script and the columns the centre reads and writes in it
     */
    public JdbcSchema(String folder, String defaultTable, String table, String initializeSchemaProperty,
                      Map<String, String> columnsByTable) {
        this.folder = folder;
        this.defaultTable = defaultTable;
        this.table = table;
        this.initializeSchemaProperty = initializeSchemaProperty;
        this.columnsByTable = new LinkedHashMap<>(columnsByTable);
    }

    /**
     * Checks that {@code name} is an SQL identifier of letters, digits and '_', optionally schema-qualified, that
     * leaves room for {@code suffix} (the name of a table derived from it).
     *
     * @return {@code name}
     * @throws IdWorkerConfigurationException naming {@code property} when it is not
     */
    public static String checkTableName(String name, String property, String suffix) {
        boolean valid = name != null && TABLE_NAME.matcher(name).matches()
                && name.substring(name.lastIndexOf('.') + 1).length() + suffix.length() <= MAX_IDENTIFIER;
        if (!valid) {
            throw new IdWorkerConfigurationException(property, "must be an SQL identifier of letters, digits and '_', "
                    + "optionally schema-qualified, the table name at most " + (MAX_IDENTIFIER - suffix.length())
                    + " characters, was '" + name + "'");
        }
        return name;
    }

    /** The class-path resource holding the DDL for {@code dialect}. */
    public String resource(JdbcDialect dialect) {
        return dialect.schemaResource(folder);
    }

    /** The DDL statements for {@code dialect}, table names filled in, in the order they run. */
    public List<String> statements(JdbcDialect dialect) {
        String resource = resource(dialect);
        try (InputStream in = JdbcSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            String text = renamed(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            List<String> statements = new ArrayList<>();
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                String stripped = line.strip();
                if (stripped.startsWith("--")) {
                    continue;
                }
                // a statement ends with ';' at the end of a line: column comments may hold one inside quotes
                if (stripped.endsWith(";")) {
                    sql.append(line, 0, line.lastIndexOf(';'));
                    addStatement(statements, sql);
                } else {
                    sql.append(line).append('\n');
                }
            }
            addStatement(statements, sql);
            return statements;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    /**
     * The DDL with the default name replaced where it starts an identifier; a longer identifier that merely
     * contains it (preceded by a letter, digit, '_' or '.') is left alone.
     */
    private String renamed(String ddl) {
        if (table.equals(defaultTable)) {
            return ddl;
        }
        return Pattern.compile("(?<![A-Za-z0-9_.])" + Pattern.quote(defaultTable) + "(?![A-Za-z0-9])")
                .matcher(ddl).replaceAll(Matcher.quoteReplacement(table));
    }

    private static void addStatement(List<String> statements, StringBuilder sql) {
        if (!sql.toString().isBlank()) {
            statements.add(sql.toString().strip());
        }
        sql.setLength(0);
    }

    /** Creates the tables that are missing; existing ones are left as they are. */
    @SuppressWarnings("NullAway") // the work returns null, as it has no result; SqlWork's T may be
    // nullable, which NullAway checks only in JSpecify mode
    public void create(JdbcRunner jdbc) {
        List<String> ddl = statements(jdbc.dialect());
        // one at a time with the upgrades of this JVM: H2 rebuilds a table for an ALTER TABLE, and a concurrent
        // CREATE TABLE IF NOT EXISTS that looks in between failed with "object already exists"
        synchronized (ALTER_LOCK) {
            jdbc.run("create the tables of " + resource(jdbc.dialect()), s -> {
                try (Statement st = s.statement()) {
                    for (String statement : ddl) {
                        st.execute(statement);
                    }
                }
                return null;
            });
        }
    }

    /**
     * Checks that every table exists with the centre's columns.
     *
     * @throws IdWorkerConfigurationException naming the initialize-schema property when one does not
     * @throws io.github.idworker.CenterUnavailableException when the database cannot be reached
     */
    public void verify(JdbcRunner jdbc) {
        JdbcDialect dialect = jdbc.dialect();
        for (Map.Entry<String, String> t : columnsByTable.entrySet()) {
            SQLException missing = probe(jdbc, "check table " + t.getKey(),
                    "SELECT " + t.getValue() + " FROM " + t.getKey() + " WHERE 1 = 0");
            if (missing != null) {
                throw new IdWorkerConfigurationException(initializeSchemaProperty, "table '" + t.getKey()
                        + "' is missing or lacks idworker's columns in " + jdbc.location() + " ("
                        + StoreLocations.redact(String.valueOf(missing.getMessage()).trim())
                        + "). Create it with the DDL in " + resource(dialect)
                        + (table.equals(defaultTable) ? "" : " (with " + defaultTable + " replaced by " + table + ")")
                        + " (see docs/tables.md) or set " + initializeSchemaProperty + "=always", missing);
            }
        }
    }

    /**
     * A column that existing tables lack: the statements that add it and fill it in for the rows already there,
     * in the order they run, with the table name filled in.
     *
     * @param table the table
     * @param column the column
     * @param purpose what the column is for, for the message that asks for it
     * @param statements {@code ALTER TABLE ... ADD COLUMN ...} first, then any statements that fill it in; each
     *        idempotent once the column exists
     */
    public record AddedColumn(String table, String column, String purpose, List<String> statements) {
        public AddedColumn {
            statements = List.copyOf(statements);
        }
    }

    /** Whether {@code table} has {@code column}. */
    public boolean hasColumn(JdbcRunner jdbc, String table, String column) {
        return probe(jdbc, "check column " + column + " of table " + table,
                "SELECT " + column + " FROM " + table + " WHERE 1 = 0") == null;
    }

    /**
     * Adds the column unless the table has it: its {@code ALTER TABLE}, then the statements that fill it in. Safe
     * when several processes start at once: an {@code ALTER TABLE} that fails is followed by another look at the
     * table, and a column a concurrent process added counts as done; otherwise it is tried again a few times.
     * H2 shared by several processes (server mode) is not safe against two of them upgrading at once: upgrade it
     * from one process first.
     *
     * @throws io.github.idworker.CenterUnavailableException when a statement fails otherwise
     */
    public void addColumnIfMissing(JdbcRunner jdbc, AddedColumn added) {
        // H2 (2.4.240) lost the whole table when two of these ALTER TABLE statements ran at once, so the
        // upgrades of one JVM run one at a time; processes sharing one database rely on its own locking
        synchronized (ALTER_LOCK) {
            addColumnOnce(jdbc, added);
        }
    }

    @SuppressWarnings("NullAway") // the works return null for "no failure" and "no result"; SqlWork's T may be
    // nullable, which NullAway checks only in JSpecify mode
    private void addColumnOnce(JdbcRunner jdbc, AddedColumn added) {
        String alter = added.statements().get(0);
        @Nullable SQLException failed = null;
        for (int attempt = 1; !hasColumn(jdbc, added.table(), added.column()); attempt++) {
            if (attempt > ADD_COLUMN_ATTEMPTS) {
                throw new CenterUnavailableException("Could not add column " + added.column() + " to table "
                        + added.table() + " at " + jdbc.location() + " in " + ADD_COLUMN_ATTEMPTS + " attempts: "
                        + (failed == null ? "the ALTER TABLE succeeded, yet the column is missing"
                        : StoreLocations.redact(String.valueOf(failed.getMessage()).trim())), failed);
            }
            if (attempt > 1) {
                // H2 rebuilds the table for an ALTER: a concurrent one may find it missing or locked for a moment
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(20, 200)));
            }
            failed = jdbc.run("add column " + added.column() + " to table " + added.table(), s -> {
                try (Statement st = s.statement()) {
                    st.execute(alter);
                    return null;
                } catch (SQLException e) {
                    // a lock timeout too: a concurrent ALTER held the table (H2 locks its catalogue); look again
                    s.rollback();
                    return e;
                }
            });
        }
        // Filled in only when some row lacks it: the fill is a write over the whole table and waits for any row
        // lock another statement holds, where a plain read (READ COMMITTED, as the runner sets) takes none. Every
        // start of every node runs this, nearly always with nothing to fill. A rehearsal saw the old unconditional
        // fill hit MariaDB's statement timeout during another class's allocations; the lock behind it was not
        // reproduced by hand. Rows still unfilled (a crash between the ALTER and the fill, a node of the old version
        // inserting rows during a rolling upgrade) are found by the read and filled here.
        if (!hasUnfilledRows(jdbc, added)) {
            return;
        }
        for (String fill : added.statements().subList(1, added.statements().size())) {
            jdbc.run("fill in column " + added.column() + " of table " + added.table(), s -> {
                try (Statement st = s.statement()) {
                    st.execute(fill);
                }
                return null;
            });
        }
    }

    /**
     * Whether some row of the table has no value in the added column; returns at most one row and takes no lock
     * (the column has no index, so the read may scan the table, within the statement timeout).
     */
    private static boolean hasUnfilledRows(JdbcRunner jdbc, AddedColumn added) {
        return jdbc.run("check column " + added.column() + " of table " + added.table() + " for rows to fill in",
                s -> {
                    try (Statement st = s.statement()) {
                        st.setMaxRows(1);
                        try (ResultSet rows = st.executeQuery("SELECT " + added.column() + " FROM " + added.table()
                                + " WHERE " + added.column() + " IS NULL")) {
                            return rows.next();
                        }
                    }
                });
    }

    /**
     * Checks that the table has the added column.
     *
     * @throws IdWorkerConfigurationException naming the initialize-schema property, the table and the exact
     *         statements that add the column, when it lacks it
     * @throws io.github.idworker.CenterUnavailableException when the database cannot be reached
     */
    public void verifyColumn(JdbcRunner jdbc, AddedColumn added) {
        SQLException missing = probe(jdbc, "check column " + added.column() + " of table " + added.table(),
                "SELECT " + added.column() + " FROM " + added.table() + " WHERE 1 = 0");
        if (missing != null) {
            throw new IdWorkerConfigurationException(initializeSchemaProperty, "table '" + added.table() + "' in "
                    + jdbc.location() + " lacks column " + added.column() + " (" + added.purpose() + "; tables "
                    + "created before it was added lack it). Add it with: " + String.join("; ", added.statements())
                    + "; or set " + initializeSchemaProperty + "=always, which runs these at startup", missing);
        }
    }

    /** Runs a query that returns no rows; its failure, unless the database could not be reached. */
    @SuppressWarnings("NullAway") // the work returns null for "no failure"; SqlWork's T may be nullable, which
    // NullAway checks only in JSpecify mode
    private static @Nullable SQLException probe(JdbcRunner jdbc, String what, String sql) {
        return jdbc.run(what, s -> {
            try (Statement st = s.statement()) {
                st.executeQuery(sql).close();
                return null;
            } catch (SQLException e) {
                if (isUnreachable(e)) {
                    throw e;
                }
                s.rollback();
                return e;
            }
        });
    }

    /** A failure of the connection or a timeout, not of the query: the table may well be there. */
    private static boolean isUnreachable(SQLException e) {
        return JdbcRunner.isTimeout(e) || (e.getSQLState() != null && e.getSQLState().startsWith("08"));
    }
}
