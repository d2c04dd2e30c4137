package io.github.idworker.test.service;

/** The whole contract on H2 in its own mode. */
class H2AppStoreTest extends AbstractAppStoreContractTest {
    @Override
    protected AppStoreStore createStore() {
        return new JdbcAppStoreStore("jdbc:h2:mem:app-store;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
