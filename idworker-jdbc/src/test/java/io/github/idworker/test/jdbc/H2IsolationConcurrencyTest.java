package io.github.idworker.test.jdbc;

class H2IsolationConcurrencyTest extends AbstractIsolationConcurrencyTest {
    H2IsolationConcurrencyTest() {
        super(Database.h2("isolation"));
    }
}
