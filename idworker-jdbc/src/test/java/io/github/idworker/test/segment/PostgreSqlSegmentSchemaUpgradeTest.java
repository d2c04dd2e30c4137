package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSegmentSchemaUpgradeTest extends AbstractSegmentSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return RealServices.POSTGRES_URL;
    }

    @Override
    protected String user() {
        return RealServices.POSTGRES_USER;
    }
}
