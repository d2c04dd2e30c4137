package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSerialSchemaUpgradeTest extends AbstractSerialSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return RealServices.POSTGRES_URL;
    }

    @Override
    protected String user() {
        return RealServices.POSTGRES_USER;
    }
}
