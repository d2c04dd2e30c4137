package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;

import java.util.function.Consumer;

/** Pool settings applications use that the JDBC centres must cope with, for the stores' pool customizers. */
public final class Pools {

    /** Connections that default to REPEATABLE READ, as many teams set it for the whole application. */
    public static final Consumer<HikariConfig> REPEATABLE_READ = pool -> pool.setTransactionIsolation(
            "TRANSACTION_REPEATABLE_READ");

    /**
     * MariaDB's strictest REPEATABLE READ: {@code innodb_snapshot_isolation=ON} (the default from MariaDB 11.8)
     * fails a write to a row changed since the transaction's snapshot with error 1020.
     */
    public static final Consumer<HikariConfig> MARIADB_SNAPSHOT_ISOLATION = pool -> pool.setConnectionInitSql(
            "SET SESSION innodb_snapshot_isolation = ON");

    private Pools() {
    }
}
