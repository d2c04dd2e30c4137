package io.github.idworker.test.serial;

import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.test.jdbc.Pools;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
class H2RepeatableReadSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore("jdbc:h2:mem:serial-repeatable-read;DB_CLOSE_DELAY=-1", "sa", "",
                JdbcSerialStore.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
