package io.github.idworker.test.serial;

class H2MySqlModeSerialStoreTest extends AbstractSerialStoreContractTest {
    @Override
    protected SerialStoreStore createStore() {
        return new JdbcSerialStoreStore("jdbc:h2:mem:serial-mysqlmode;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
