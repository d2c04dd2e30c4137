package io.github.idworker.test.jdbc;

/** H2 asked to wait a minute for locks, as MariaDB (50 s) and PostgreSQL (for ever) do by default. */
class H2StatementTimeoutTest extends AbstractJdbcStatementTimeoutTest {
    H2StatementTimeoutTest() {
        super(Database.h2("statement-timeout", "LOCK_TIMEOUT=60000"));
    }
}
