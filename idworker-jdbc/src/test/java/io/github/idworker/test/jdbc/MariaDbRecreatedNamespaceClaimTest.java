package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbRecreatedNamespaceClaimTest extends AbstractRecreatedNamespaceClaimTest {
    MariaDbRecreatedNamespaceClaimTest() {
        super(Database.MARIADB);
    }
}
