package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbStatementTimeoutTest extends AbstractJdbcStatementTimeoutTest {
    MariaDbStatementTimeoutTest() {
        super(Database.MARIADB);
    }
}
