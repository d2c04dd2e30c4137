package io.github.idworker.test.jdbc;

class H2ConnectionSettingsTest extends AbstractConnectionSettingsTest {
    H2ConnectionSettingsTest() {
        super(Database.h2("connection-settings"));
    }
}
