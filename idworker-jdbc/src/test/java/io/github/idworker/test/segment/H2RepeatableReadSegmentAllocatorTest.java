package io.github.idworker.test.segment;

import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.test.jdbc.Pools;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
class H2RepeatableReadSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-repeatable-read;DB_CLOSE_DELAY=-1", "sa", "",
                JdbcSegmentAllocator.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
