package io.github.idworker.sample;

import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.test.AbstractSequenceManagerContractTest;
import io.github.idworker.test.SequenceManagerStore;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ScriptUtils;

import java.sql.Connection;
import java.util.UUID;

/**
 * The sample's own {@link MyBatisSequenceManager} keeps the same contract as idworker's centres: this one line of
 * setup runs the whole suite from idworker-test-support against it, over a real H2 database.
 */
class MyBatisSequenceManagerContractTest extends AbstractSequenceManagerContractTest {

    @Override
    protected SequenceManagerStore createStore() throws Exception {
        return new MyBatisStore();
    }

    /** One H2 database with the sample's schema; every manager gets its own MyBatis session factory over it. */
    static final class MyBatisStore implements SequenceManagerStore {

        private final HikariDataSource dataSource = new HikariDataSource();
        private final JdbcClient jdbc;

        MyBatisStore() throws Exception {
            dataSource.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID());
            dataSource.setUsername("sa");
            dataSource.setMaximumPoolSize(16);
            try (Connection c = dataSource.getConnection()) {
                ScriptUtils.executeSqlScript(c, new ClassPathResource("schema.sql"));
            }
            jdbc = JdbcClient.create(dataSource);
        }

        @Override
        public ISequenceManager newManager() {
            Configuration configuration = new Configuration(
                    new Environment("contract", new SpringManagedTransactionFactory(), dataSource));
            configuration.addMapper(WorkerSlotMapper.class);
            SqlSessionFactory factory = new SqlSessionFactoryBuilder().build(configuration);
            WorkerSlotMapper mapper = new SqlSessionTemplate(factory).getMapper(WorkerSlotMapper.class);
            return new MyBatisSequenceManager(mapper, JdbcDialect.H2);
        }

        @Override
        public void expireLease(String namespace, int workerId) {
            jdbc.sql("UPDATE idworker_worker_slot SET expires_at = 0 WHERE ns = ? AND slot_id = ?")
                    .params(namespace, workerId).update();
        }

        @Override
        public long storedHighWater(String namespace, int workerId) {
            return jdbc.sql("SELECT high_water FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")
                    .params(namespace, workerId).query(Long.class).optional().orElse(-1L);
        }

        @Override
        public String storedOwner(String namespace, int workerId) {
            return jdbc.sql("SELECT owner_token FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")
                    .params(namespace, workerId).query(String.class).optional().orElse(null);
        }

        @Override
        public void deleteNamespace(String namespace) {
            jdbc.sql("DELETE FROM idworker_worker_slot WHERE ns = ?").param(namespace).update();
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }
}
