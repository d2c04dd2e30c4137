package io.github.idworker.jdbc;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.StoreLocations;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 */
public final class JdbcSchema {

    /** An SQL identifier of letters, digits and '_', optionally schema-qualified, each part at most 63 long. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
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
    public void create(JdbcRunner jdbc) {
        List<String> ddl = statements(jdbc.dialect());
        jdbc.run("create the tables of " + resource(jdbc.dialect()), s -> {
            try (Statement st = s.statement()) {
                for (String statement : ddl) {
                    st.execute(statement);
                }
            }
            return null;
        });
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
            SQLException missing = jdbc.run("check table " + t.getKey(), s -> {
                try (Statement st = s.statement()) {
                    st.executeQuery("SELECT " + t.getValue() + " FROM " + t.getKey() + " WHERE 1 = 0").close();
                    return null;
                } catch (SQLException e) {
                    if (isUnreachable(e)) {
                        throw e;
                    }
                    s.rollback();
                    return e;
                }
            });
            if (missing != null) {
                throw new IdWorkerConfigurationException(initializeSchemaProperty, "table '" + t.getKey()
                        + "' is missing or lacks idworker's columns in " + jdbc.location() + " ("
                        + StoreLocations.redact(String.valueOf(missing.getMessage()).trim())
                        + "). Create it with the DDL in " + resource(dialect)
                        + (table.equals(defaultTable) ? "" : " (with " + defaultTable + " replaced by " + table + ")")
                        + " (see the README) or set " + initializeSchemaProperty + "=always", missing);
            }
        }
    }

    /** A failure of the connection or a timeout, not of the query: the table may well be there. */
    private static boolean isUnreachable(SQLException e) {
        return JdbcRunner.isTimeout(e) || (e.getSQLState() != null && e.getSQLState().startsWith("08"));
    }
}
