package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.Tag;

/**
 * MariaDB at REPEATABLE READ with {@code innodb_snapshot_isolation=ON} (the default from MariaDB 11.8), where a
 * row changed since the transaction's snapshot fails with error 1020 instead of being read as it is now.
 */
@Tag("real-services")
class MariaDbIsolationConcurrencyTest extends AbstractIsolationConcurrencyTest {
    MariaDbIsolationConcurrencyTest() {
        super(Database.MARIADB);
    }

    @Override
    protected void configure(HikariConfig pool) {
        Pools.MARIADB_SNAPSHOT_ISOLATION.accept(pool);
    }
}
