package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The DDL idworker ships for H2, as a script for {@code spring.sql.init.schema-locations}: tests that create the
 * tables the way an application does run the shipped statements, never a copy that could drift from them. An
 * older version's table is the shipped one without the columns added since, plus the rows it left behind.
 */
final class ShippedSchema {

    private final String folder;
    private final String defaultTable;
    private final String table;
    private final List<String> droppedColumns = new ArrayList<>();
    private final List<String> rows = new ArrayList<>();

    private ShippedSchema(String folder, String defaultTable, String table) {
        this.folder = folder;
        this.defaultTable = defaultTable;
        this.table = table;
    }

    /** The tables of {@code folder} (e.g. {@code serial/jdbc}) with {@code defaultTable} renamed to {@code table}. */
    static ShippedSchema of(String folder, String defaultTable, String table) {
        return new ShippedSchema(folder, defaultTable, table);
    }

    /** As a version before {@code column} existed created the tables. */
    ShippedSchema without(String column) {
        droppedColumns.add(column);
        return this;
    }

    /** Plus a statement the older version's application ran, such as the rows it left. */
    ShippedSchema with(String statement) {
        rows.add(statement);
        return this;
    }

    /** A {@code file:} location of the script, deleted when the JVM ends. */
    String location() {
        List<String> statements = new ArrayList<>();
        for (String statement : new JdbcSchema(folder, defaultTable, table, "unused", Map.of()).statements(JdbcDialect.H2)) {
            for (String column : droppedColumns) {
                statement = Pattern.compile("(?m)^\\s*" + Pattern.quote(column) + "\\s.*$\\n?").matcher(statement).replaceAll("");
            }
            statements.add(statement);
        }
        statements.addAll(rows);
        try {
            Path file = Files.createTempFile("idworker-schema-", ".sql");
            file.toFile().deleteOnExit();
            Files.writeString(file, String.join(";\n", statements) + ";\n", StandardCharsets.UTF_8);
            return file.toUri().toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
