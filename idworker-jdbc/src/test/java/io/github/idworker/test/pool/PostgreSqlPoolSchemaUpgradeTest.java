package io.github.idworker.test.pool;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlPoolSchemaUpgradeTest extends AbstractPoolSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return RealServices.POSTGRES_URL;
    }

    @Override
    protected String user() {
        return RealServices.POSTGRES_USER;
    }
}
