package io.github.idworker.spring.boot.autoconfigure;

import javax.sql.DataSource;

/**
 * When the lease tables, the segment table, the serial tables, the pool table or the application table are
 * created at startup; {@code EMBEDDED} means what it means for {@code spring.sql.init.mode}.
 */
public enum SchemaInitialization {

    /** Always create it when it is missing. */
    ALWAYS,

    /**
     * Create it when it is missing and Spring Boot considers the DataSource embedded (an in-memory H2, HSQLDB
     * or Derby, as for "spring.sql.init.mode=embedded"); a file-based H2 or a database server is not.
     */
    EMBEDDED,

    /** Never create it; startup fails when it is missing. */
    NEVER;

    /** Whether missing tables are created in {@code dataSource}. */
    public boolean creates(DataSource dataSource) {
        return switch (this) {
            case ALWAYS -> true;
            case EMBEDDED -> EmbeddedDatabases.isEmbedded(dataSource);
            case NEVER -> false;
        };
    }
}
