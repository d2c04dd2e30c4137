package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** Local serials with rules and high-waters in MariaDB. */
@Tag("real-services")
class MariaDbLocalSerialNumbersTest extends LocalSerialNumbersTest {
    @Override
    protected JdbcSerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
