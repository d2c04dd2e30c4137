package io.github.idworker.test.pool;

import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
@Tag("real-services")
class PostgreSqlRepeatableReadPoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "",
                JdbcPoolStore.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
