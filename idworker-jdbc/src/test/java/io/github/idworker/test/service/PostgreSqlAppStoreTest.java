package io.github.idworker.test.service;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlAppStoreTest extends AbstractAppStoreContractTest {
    @Override
    protected AppStoreStore createStore() {
        return new JdbcAppStoreStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
