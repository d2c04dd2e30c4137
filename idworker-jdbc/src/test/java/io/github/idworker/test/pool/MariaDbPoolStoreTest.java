package io.github.idworker.test.pool;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbPoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
