package io.github.idworker.test.jdbc;

import io.github.idworker.test.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class PostgreSqlSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
