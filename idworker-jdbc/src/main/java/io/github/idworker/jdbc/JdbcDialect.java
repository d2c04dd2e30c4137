package io.github.idworker.jdbc;

import io.github.idworker.IdWorkerConfigurationException;

import java.util.Locale;

/**
 * The few SQL fragments and session habits that differ between the databases the JDBC centres support;
 * everything else is portable SQL.
 */
public enum JdbcDialect {
    /**
     * H2 in any compatibility mode. Its statement timeout is a session setting and does not cut a wait for a
     * lock, so {@link JdbcRunner} bounds lock waits with {@code SET LOCK_TIMEOUT} and restores both afterwards.
     */
    H2("h2", "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)", true),
    /**
     * MySQL 8 and MariaDB 10.5 or later. The clock is read as UTC ({@code UTC_TIMESTAMP}), so the session's
     * {@code time_zone} and its daylight-saving changes never move it.
     */
    MYSQL("mysql", "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)", false),
    /** PostgreSQL 12 or later; {@code clock_timestamp()} because {@code CURRENT_TIMESTAMP} is frozen per transaction. */
    POSTGRESQL("postgresql", "CAST(FLOOR(EXTRACT(EPOCH FROM CLOCK_TIMESTAMP()) * 1000) AS BIGINT)", false);

    private final String schemaName;
    private final String nowMillis;
    private final boolean sessionTimeouts;

    JdbcDialect(String schemaName, String nowMillis, boolean sessionTimeouts) {
        this.schemaName = schemaName;
        this.nowMillis = nowMillis;
        this.sessionTimeouts = sessionTimeouts;
    }

    /** An SQL expression for the database's clock in milliseconds since 1970-01-01T00:00:00Z. */
    public String nowMillis() {
        return nowMillis;
    }

    /** The class-path resource {@code io/github/idworker/<folder>/schema-<database>.sql}, e.g. folder {@code lease/jdbc}. */
    public String schemaResource(String folder) {
        return "io/github/idworker/" + folder + "/schema-" + schemaName + ".sql";
    }

    /**
     * Whether the statement timeout is a setting of the whole session that stays with a pooled connection, and
     * lock waits need a timeout of their own (H2).
     */
    boolean hasSessionTimeouts() {
        return sessionTimeouts;
    }

    /**
     * Picks the dialect for a JDBC product name.
     *
     * @throws IdWorkerConfigurationException for a database idworker does not support
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
        throw new IdWorkerConfigurationException("spring.datasource.url",
                "the JDBC centre supports H2, MySQL, MariaDB and PostgreSQL, not '" + productName
                        + "'; declare your own ISequenceManager bean named dbSequenceManager for other databases");
    }
}
