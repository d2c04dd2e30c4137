package io.github.idworker.test.jdbc;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
