package io.github.idworker.test.pool;

class H2PostgreSqlModePoolStoreTest extends AbstractPoolStoreContractTest {
    @Override
    protected PoolStoreStore createStore() {
        return new JdbcPoolStoreStore(
                "jdbc:h2:mem:pool-pgmode;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
