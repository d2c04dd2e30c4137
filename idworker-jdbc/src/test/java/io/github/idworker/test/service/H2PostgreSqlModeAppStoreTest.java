package io.github.idworker.test.service;

class H2PostgreSqlModeAppStoreTest extends AbstractAppStoreContractTest {
    @Override
    protected AppStoreStore createStore() {
        return new JdbcAppStoreStore(
                "jdbc:h2:mem:app-pgmode;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
