package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * JDBC centre, used with {@code @EnableIdWorker(mode = CenterMode.DB)}; its timeouts also bound the segment
 * allocator of {@code @EnableSegmentIdGenerators}.
 * Bound to {@code idworker.jdbc.*}.
 */
public class JdbcProperties {

    /**
     * Name of the lease table, optionally schema-qualified; the namespace table beside it is named with "_ns"
     * appended.
     */
    private String table = "idworker_worker_slot";

    /**
     * When to create the lease tables at startup if they are missing.
     */
    private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

    /**
     * Longest a statement of the lease centre or the segment allocator may run, a wait for a row locked by
     * another session included, before the database cancels it; whole seconds, at least 1s, and shorter
     * than "idworker.lease.heartbeat-interval", so a renewal that hangs is given up and retried before the
     * lease runs out.
     */
    private Duration statementTimeout = Duration.ofSeconds(2);

    /**
     * Longest the driver waits for any answer of the database (a blackholed connection, a failover in
     * progress) before it gives the connection up; longer than "statement-timeout".
     */
    private Duration networkTimeout = Duration.ofSeconds(5);

    public String getTable() {
        return this.table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public SchemaInitialization getInitializeSchema() {
        return this.initializeSchema;
    }

    public void setInitializeSchema(SchemaInitialization initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public Duration getStatementTimeout() {
        return this.statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
        this.statementTimeout = statementTimeout;
    }

    public Duration getNetworkTimeout() {
        return this.networkTimeout;
    }

    public void setNetworkTimeout(Duration networkTimeout) {
        this.networkTimeout = networkTimeout;
    }
}
