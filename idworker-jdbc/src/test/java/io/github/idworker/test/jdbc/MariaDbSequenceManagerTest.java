package io.github.idworker.test.jdbc;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

@Tag("real-services")
class MariaDbSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() {
        return new JdbcSequenceManagerStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
