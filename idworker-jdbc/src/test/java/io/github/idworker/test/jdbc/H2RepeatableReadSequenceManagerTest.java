package io.github.idworker.test.jdbc;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
class H2RepeatableReadSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore("jdbc:h2:mem:repeatable-read;DB_CLOSE_DELAY=-1", "sa", "",
                JdbcSequenceManager.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
