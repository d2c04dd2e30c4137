package io.github.idworker.test.jdbc;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

class H2MySqlModeSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore("jdbc:h2:mem:mysqlmode;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
