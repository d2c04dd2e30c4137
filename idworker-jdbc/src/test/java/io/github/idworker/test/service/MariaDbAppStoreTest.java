package io.github.idworker.test.service;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbAppStoreTest extends AbstractAppStoreContractTest {
    @Override
    protected AppStoreStore createStore() {
        return new JdbcAppStoreStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
