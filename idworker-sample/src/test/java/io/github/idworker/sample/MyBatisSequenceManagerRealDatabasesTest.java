package io.github.idworker.sample;

import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * {@link MyBatisSequenceManager} over the real MariaDB and PostgreSQL: the whole contract kit and the
 * namespace-record tests, each with a pool whose default level is REPEATABLE READ (MariaDB's own default; set
 * on the PostgreSQL pool), where statements that lose a race fail to serialize unless the manager runs them at
 * READ COMMITTED. A row locked by another session waits for the lock without a lock timeout of its own on
 * PostgreSQL and up to 50 s on MariaDB, so only the manager's statement timeout bounds the call.
 */
@Tag("real-services")
class MyBatisSequenceManagerRealDatabasesTest {

    private static final String REPEATABLE_READ = "TRANSACTION_REPEATABLE_READ";

    static MyBatisStore mariaDb() throws Exception {
        return new MyBatisStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, REPEATABLE_READ);
    }

    static MyBatisStore postgreSql() throws Exception {
        return new MyBatisStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, REPEATABLE_READ);
    }

    @Nested
    class MariaDbContract extends AbstractSequenceManagerContractTest {
        @Override
        protected SequenceManagerStore createStore() throws Exception {
            return mariaDb();
        }

        /** The sample's centre predates preferred worker ids (idworker.worker-id.*); see docs/worker-ids.md. */
        @Override
        protected boolean leasesPreferredSlots() {
            return false;
        }
    }

    @Nested
    class PostgreSqlContract extends AbstractSequenceManagerContractTest {
        @Override
        protected SequenceManagerStore createStore() throws Exception {
            return postgreSql();
        }

        /** The sample's centre predates preferred worker ids (idworker.worker-id.*); see docs/worker-ids.md. */
        @Override
        protected boolean leasesPreferredSlots() {
            return false;
        }
    }

    @Nested
    class MariaDbRecords extends MyBatisSequenceManagerRecordsTest {
        @Override
        MyBatisStore createStore() throws Exception {
            return mariaDb();
        }
    }

    @Nested
    class PostgreSqlRecords extends MyBatisSequenceManagerRecordsTest {
        @Override
        MyBatisStore createStore() throws Exception {
            return postgreSql();
        }
    }
}
