package io.github.idworker.test.pool;

/** The whole contract on H2 in MySQL mode, with the password in the URL, where messages must not show it. */
class H2MySqlModePoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore("jdbc:h2:mem:pool-mysqlmode;MODE=MySQL;DB_CLOSE_DELAY=-1;PASSWORD=p00l-S3cret",
                "sa", null);
    }
}
