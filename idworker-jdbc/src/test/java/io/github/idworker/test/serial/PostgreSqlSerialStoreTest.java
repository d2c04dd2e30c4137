package io.github.idworker.test.serial;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
