package io.github.idworker.test.jdbc;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract over a pool at REPEATABLE READ with {@code innodb_snapshot_isolation=ON} (the default from
 * MariaDB 11.8), where a row changed since the transaction's snapshot fails with error 1020.
 */
@Tag("real-services")
class MariaDbRepeatableReadSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                JdbcSequenceManager.DEFAULT_TABLE, Pools.REPEATABLE_READ.andThen(Pools.MARIADB_SNAPSHOT_ISOLATION));
    }
}
