package io.github.idworker.test.serial;

import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.jdbc.Pools;
import org.junit.jupiter.api.Tag;

/**
 * The whole contract over a pool at REPEATABLE READ with {@code innodb_snapshot_isolation=ON} (the default from
 * MariaDB 11.8), where a row changed since the transaction's snapshot fails with error 1020.
 */
@Tag("real-services")
class MariaDbRepeatableReadSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                JdbcSerialStore.DEFAULT_TABLE, Pools.REPEATABLE_READ.andThen(Pools.MARIADB_SNAPSHOT_ISOLATION));
    }
}
