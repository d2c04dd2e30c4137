package io.github.idworker.test.pool;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlPoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
