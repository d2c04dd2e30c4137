package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbSerialSchemaUpgradeTest extends AbstractSerialSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return RealServices.MARIADB_URL;
    }

    @Override
    protected String user() {
        return RealServices.MARIADB_USER;
    }
}
