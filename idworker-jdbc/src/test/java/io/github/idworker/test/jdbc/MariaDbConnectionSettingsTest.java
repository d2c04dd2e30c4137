package io.github.idworker.test.jdbc;

import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbConnectionSettingsTest extends AbstractConnectionSettingsTest {
    MariaDbConnectionSettingsTest() {
        super(Database.MARIADB);
    }
}
