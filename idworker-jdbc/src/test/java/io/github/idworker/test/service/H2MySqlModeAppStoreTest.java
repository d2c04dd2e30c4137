package io.github.idworker.test.service;

/** The whole contract on H2 in MySQL mode, with the password in the URL, where messages must not show it. */
class H2MySqlModeAppStoreTest extends AbstractAppStoreContractTest {
    @Override
    protected AppStoreStore createStore() {
        return new JdbcAppStoreStore("jdbc:h2:mem:app-mysqlmode;MODE=MySQL;DB_CLOSE_DELAY=-1;PASSWORD=4pp-S3cret",
                "sa", null);
    }
}
