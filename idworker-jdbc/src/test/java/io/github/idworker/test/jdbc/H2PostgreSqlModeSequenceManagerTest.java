package io.github.idworker.test.jdbc;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

class H2PostgreSqlModeSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(
                "jdbc:h2:mem:pgmode;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
