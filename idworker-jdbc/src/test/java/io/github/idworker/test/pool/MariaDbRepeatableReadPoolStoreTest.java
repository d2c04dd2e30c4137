package io.github.idworker.test.pool;

import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract over a pool at REPEATABLE READ with {@code innodb_snapshot_isolation=ON} (the default from
 * MariaDB 11.8), where a row changed since the transaction's snapshot fails with error 1020.
 */
@Tag("real-services")
class MariaDbRepeatableReadPoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                JdbcPoolStore.DEFAULT_TABLE, Pools.REPEATABLE_READ.andThen(Pools.MARIADB_SNAPSHOT_ISOLATION));
    }
}
