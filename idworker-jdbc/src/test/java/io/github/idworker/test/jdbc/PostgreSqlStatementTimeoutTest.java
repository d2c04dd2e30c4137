package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlStatementTimeoutTest extends AbstractJdbcStatementTimeoutTest {
    PostgreSqlStatementTimeoutTest() {
        super(Database.POSTGRESQL);
    }
}
