package io.github.idworker.test.jdbc;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

/** The whole contract over a pool whose connections default to REPEATABLE READ. */
@Tag("real-services")
class PostgreSqlRepeatableReadSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "",
                JdbcSequenceManager.DEFAULT_TABLE, Pools.REPEATABLE_READ);
    }
}
