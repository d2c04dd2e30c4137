package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlIsolationConcurrencyTest extends AbstractIsolationConcurrencyTest {
    PostgreSqlIsolationConcurrencyTest() {
        super(Database.POSTGRESQL);
    }
}
