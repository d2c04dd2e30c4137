package io.github.idworker.jdbc;

import java.util.Locale;

/**
 * The few SQL fragments that differ between the databases the JDBC centre supports; everything else is
 * portable SQL.
 */
public enum JdbcDialect {
    /** H2 in any compatibility mode. */
    H2("h2", "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)"),
    /** MySQL 8 and MariaDB 10.5 or later. */
    MYSQL("mysql", "CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)"),
    /** PostgreSQL 12 or later; {@code clock_timestamp()} because {@code CURRENT_TIMESTAMP} is frozen per transaction. */
    POSTGRESQL("postgresql", "CAST(FLOOR(EXTRACT(EPOCH FROM CLOCK_TIMESTAMP()) * 1000) AS BIGINT)");

    private final String schemaName;
    private final String nowMillis;

    JdbcDialect(String schemaName, String nowMillis) {
        this.schemaName = schemaName;
        this.nowMillis = nowMillis;
    }

    /** An SQL expression for the database's clock in milliseconds since 1970-01-01T00:00:00Z. */
    public String nowMillis() {
        return nowMillis;
    }

    /** The class-path resource holding this dialect's DDL, with {@code ${table}} for the table name. */
    public String schemaResource() {
        return "io/github/idworker/jdbc/schema-" + schemaName + ".sql";
    }

    /**
     * Picks the dialect for a JDBC product name.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException for a database idworker does not support
     */
    public static JdbcDialect fromProductName(String productName) {
        String p = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (p.contains("h2")) {
            return H2;
        }
        if (p.contains("mysql") || p.contains("mariadb")) {
            return MYSQL;
        }
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        throw new io.github.idworker.IdWorkerConfigurationException("spring.datasource.url",
                "the JDBC centre supports H2, MySQL, MariaDB and PostgreSQL, not '" + productName
                        + "'; declare your own ISequenceManager bean named dbSequenceManager for other databases");
    }
}
