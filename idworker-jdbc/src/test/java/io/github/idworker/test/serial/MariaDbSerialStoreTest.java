package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
