package io.github.idworker.test.segment;

import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
@Tag("real-services")
class PostgreSqlRepeatableReadSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "",
                JdbcSegmentAllocator.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
