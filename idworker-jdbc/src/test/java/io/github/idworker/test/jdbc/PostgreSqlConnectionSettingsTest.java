package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlConnectionSettingsTest extends AbstractConnectionSettingsTest {
    PostgreSqlConnectionSettingsTest() {
        super(Database.POSTGRESQL);
    }
}
