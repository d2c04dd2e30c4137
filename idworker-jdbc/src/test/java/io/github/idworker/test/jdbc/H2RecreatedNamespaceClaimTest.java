package io.github.idworker.test.jdbc;

class H2RecreatedNamespaceClaimTest extends AbstractRecreatedNamespaceClaimTest {
    H2RecreatedNamespaceClaimTest() {
        super(Database.h2("recreated"));
    }
}
