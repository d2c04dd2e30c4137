package io.github.idworker.test.pool;

import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.test.jdbc.Pools;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
class H2RepeatableReadPoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore("jdbc:h2:mem:pool-repeatable-read;DB_CLOSE_DELAY=-1", "sa", "",
                JdbcPoolStore.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
