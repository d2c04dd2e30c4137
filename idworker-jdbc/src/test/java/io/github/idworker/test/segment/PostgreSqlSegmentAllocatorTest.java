package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
