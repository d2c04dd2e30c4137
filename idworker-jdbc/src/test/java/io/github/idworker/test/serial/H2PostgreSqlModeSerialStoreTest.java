package io.github.idworker.test.serial;

class H2PostgreSqlModeSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore(
                "jdbc:h2:mem:serial-pgmode;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
