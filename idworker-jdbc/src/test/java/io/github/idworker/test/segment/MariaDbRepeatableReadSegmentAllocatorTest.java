package io.github.idworker.test.segment;

import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract over a pool at REPEATABLE READ with {@code innodb_snapshot_isolation=ON} (the default from
 * MariaDB 11.8), where a row changed since the transaction's snapshot fails with error 1020.
 */
@Tag("real-services")
class MariaDbRepeatableReadSegmentAllocatorTest extends AbstractSegmentAllocatorContractTest {
    @Override
    protected SegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                JdbcSegmentAllocator.DEFAULT_TABLE, Pools.REPEATABLE_READ.andThen(Pools.MARIADB_SNAPSHOT_ISOLATION));
    }
}
