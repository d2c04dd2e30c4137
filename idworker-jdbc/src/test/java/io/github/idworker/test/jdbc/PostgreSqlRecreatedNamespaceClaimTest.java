package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlRecreatedNamespaceClaimTest extends AbstractRecreatedNamespaceClaimTest {
    PostgreSqlRecreatedNamespaceClaimTest() {
        super(Database.POSTGRESQL);
    }
}
