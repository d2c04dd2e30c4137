package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
