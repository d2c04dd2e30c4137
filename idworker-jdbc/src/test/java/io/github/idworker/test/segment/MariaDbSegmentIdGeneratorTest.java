package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** The in-process segment generator with ranges from MariaDB. */
@Tag("real-services")
class MariaDbSegmentIdGeneratorTest extends SegmentIdGeneratorTest {

    @Override
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
