package io.github.idworker.test.serial;

import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
@Tag("real-services")
class PostgreSqlRepeatableReadSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "",
                JdbcSerialStore.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
