package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbSegmentSchemaUpgradeTest extends AbstractSegmentSchemaUpgradeTest {
    @Override
    protected String jdbcUrl() {
        return RealServices.MARIADB_URL;
    }

    @Override
    protected String user() {
        return RealServices.MARIADB_USER;
    }
}
