package io.github.idworker.jdbc;

import io.github.idworker.IdWorkerConfigurationException;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every JDBC store has in common: its tables, named after one main table, and the {@link JdbcRunner} every
 * statement runs through. It guarantees that all stores treat their tables alike: the table name is checked once,
 * as an SQL identifier that leaves room for the tables named after it ({@link IdWorkerConfigurationException}
 * naming the store's table property otherwise); the database is detected once; and the tables are created from
 * the shipped DDL and checked against the columns the store uses by one {@link JdbcSchema}, columns added after a
 * table's first release included.
 *
 * <p>A store describes its tables once, in a {@link Tables} constant, and extends this class; the algorithms stay
 * in the store.
 */
public abstract class JdbcStore {

    private final String table;
    private final JdbcRunner jdbc;
    private final JdbcSchema schema;
    private final List<JdbcSchema.AddedColumn> addedColumns;

    /**
     * @param dataSource the application's data source; idworker opens no pool of its own
     * @param tableName the main table, optionally schema-qualified; the other tables are named after it
     * @param timeouts how long any statement and any network read may take
     * @param tables the store's tables whatever their names
     * @throws IllegalArgumentException when {@code dataSource} or {@code timeouts} is missing
     * @throws IdWorkerConfigurationException naming the table property when the name is not a plain SQL identifier
     */
    protected JdbcStore(DataSource dataSource, String tableName, JdbcTimeouts timeouts, Tables tables) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        this.table = JdbcSchema.checkTableName(tableName, tables.tableProperty, tables.longestSuffix());
        this.jdbc = new JdbcRunner(dataSource, tableName, timeouts);
        Map<String, String> columnsByTable = new LinkedHashMap<>();
        tables.columnsBySuffix.forEach((suffix, columns) -> columnsByTable.put(tableName + suffix, columns));
        this.schema = new JdbcSchema(tables.folder, tables.defaultTable, tableName, tables.initializeSchemaProperty,
                columnsByTable);
        List<JdbcSchema.AddedColumn> added = new ArrayList<>();
        for (Tables.SeededColumn c : tables.addedColumns) {
            String t = tableName + c.suffix();
            added.add(new JdbcSchema.AddedColumn(t, c.column(), c.purpose(), List.of(
                    "ALTER TABLE " + t + " ADD COLUMN " + c.column() + " BIGINT",
                    "UPDATE " + t + " SET " + c.column() + " = " + c.seededFrom()
                            + " WHERE " + c.column() + " IS NULL")));
        }
        this.addedColumns = List.copyOf(added);
    }

    /** The main table, optionally schema-qualified. */
    public String tableName() {
        return table;
    }

    /** The dialect of the database behind the data source (connects once to find out). */
    public JdbcDialect dialect() {
        return jdbc.dialect();
    }

    /** The timeouts every statement runs with. */
    public JdbcTimeouts timeouts() {
        return jdbc.timeouts();
    }

    /** The class-path resource holding the tables' DDL for this database. */
    public String schemaResource() {
        return schema.resource(dialect());
    }

    /**
     * Creates the tables that are missing, and adds to existing ones the columns added since their first release,
     * filling them in for the rows already there. Existing tables are otherwise left as they are.
     */
    public void createSchemaIfMissing() {
        schema.create(jdbc);
        for (JdbcSchema.AddedColumn added : addedColumns) {
            schema.addColumnIfMissing(jdbc, added);
        }
    }

    /**
     * Checks that every table exists with the columns the store uses, those added since the first release
     * included.
     *
     * @throws IdWorkerConfigurationException naming the store's initialize-schema property when one does not; for
     *         a table without an added column, also the statements that add it
     * @throws io.github.idworker.CenterUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        schema.verify(jdbc);
        for (JdbcSchema.AddedColumn added : addedColumns) {
            schema.verifyColumn(jdbc, added);
        }
    }

    /** {@code table <main table> at <JDBC URL without credentials>}. */
    public String description() {
        return "table " + table + " at " + jdbc.location();
    }

    /** The runner every statement of the store goes through. */
    protected final JdbcRunner jdbc() {
        return jdbc;
    }

    /** The DDL statements for this database, table names filled in, in the order they run. */
    protected final List<String> schemaStatements() {
        return schema.statements(dialect());
    }

    /** The statements that add {@code column} to a table created before it existed. */
    protected final List<String> addedColumnSql(String column) {
        for (JdbcSchema.AddedColumn added : addedColumns) {
            if (added.column().equals(column)) {
                return added.statements();
            }
        }
        throw new IllegalArgumentException("no column " + column + " was added to the tables of " + table);
    }

    /**
     * A store's tables whatever their names: where its DDL ships, the main table's name in it, the properties
     * named in errors, the columns the store uses in each table, and the columns added after a table's first
     * release. Every table is named after the main one, plus a suffix ({@code ""} for the main table itself).
     * Immutable: each {@code with…} method returns a new description.
     */
    public static final class Tables {

        /** A {@code BIGINT} column added to table {@code main + suffix}, filled in from {@code seededFrom}. */
        private record SeededColumn(String suffix, String column, String seededFrom, String purpose) {
        }

        private final String folder;
        private final String defaultTable;
        private final String tableProperty;
        private final String initializeSchemaProperty;
        private final Map<String, String> columnsBySuffix;
        private final List<SeededColumn> addedColumns;

        private Tables(String folder, String defaultTable, String tableProperty, String initializeSchemaProperty,
                       Map<String, String> columnsBySuffix, List<SeededColumn> addedColumns) {
            this.folder = folder;
            this.defaultTable = defaultTable;
            this.tableProperty = tableProperty;
            this.initializeSchemaProperty = initializeSchemaProperty;
            this.columnsBySuffix = columnsBySuffix;
            this.addedColumns = addedColumns;
        }

        /**
         * @param folder the DDL's resource folder under {@code io/github/idworker/}, the store's package, e.g.
         *        {@code pool/jdbc}
         * @param defaultTable the main table's name in the shipped DDL
         * @param tableProperty the property naming the main table, quoted when the name is invalid
         * @param initializeSchemaProperty the property that makes the application create the tables, quoted when
         *        they are missing
         * @param columns the columns the store reads and writes in the main table
         */
        public static Tables of(String folder, String defaultTable, String tableProperty,
                                String initializeSchemaProperty, String columns) {
            return new Tables(folder, defaultTable, tableProperty, initializeSchemaProperty, Map.of("", columns),
                    List.of());
        }

        /** Plus the table named after the main one with {@code suffix}, and the columns the store uses in it. */
        public Tables with(String suffix, String columns) {
            Map<String, String> more = new LinkedHashMap<>(columnsBySuffix);
            more.put(suffix, columns);
            return new Tables(folder, defaultTable, tableProperty, initializeSchemaProperty,
                    Collections.unmodifiableMap(more), addedColumns);
        }

        /**
         * Plus a {@code BIGINT} column that tables created before it existed lack:
         * {@link JdbcStore#createSchemaIfMissing()} adds it and fills it in with {@code seededFrom} for the rows
         * already there, and {@link JdbcStore#verifySchema()}
         * refuses a table without it, quoting those statements.
         *
         * @param suffix the table's suffix ({@code ""} for the main table)
         * @param column the column
         * @param seededFrom the SQL expression the existing rows get, e.g. another column
         * @param purpose what the column is for, for the message that asks for it
         */
        public Tables withAddedColumn(String suffix, String column, String seededFrom, String purpose) {
            List<SeededColumn> more = new ArrayList<>(addedColumns);
            more.add(new SeededColumn(suffix, column, seededFrom, purpose));
            return new Tables(folder, defaultTable, tableProperty, initializeSchemaProperty, columnsBySuffix,
                    List.copyOf(more));
        }

        /** The longest suffix: the main table's name must leave room for it. */
        private String longestSuffix() {
            String longest = "";
            for (String suffix : columnsBySuffix.keySet()) {
                if (suffix.length() > longest.length()) {
                    longest = suffix;
                }
            }
            return longest;
        }
    }
}
