package io.github.idworker.sample;

import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.jdbc.JdbcSchema;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * {@link MyBatisSequenceManager} over a real database with the lease tables idworker ships, seen by the contract
 * kit; every manager gets its own MyBatis session factory over one pool, as separate processes would.
 */
final class MyBatisStore implements SequenceManagerStore {

    private final HikariDataSource dataSource = new HikariDataSource();
    private final JdbcDialect dialect;
    private final JdbcClient jdbc;

    /** A fresh in-memory H2 database. */
    static MyBatisStore h2() throws SQLException {
        return new MyBatisStore("jdbc:h2:mem:" + UUID.randomUUID(), "sa", null);
    }

    /**
     * @param isolation the pool's default isolation level (for example {@code TRANSACTION_REPEATABLE_READ}), or
     *        {@code null} for the driver's default
     */
    MyBatisStore(String url, String user, String isolation) throws SQLException {
        dataSource.setJdbcUrl(url);
        dataSource.setUsername(user);
        dataSource.setMaximumPoolSize(16);
        if (isolation != null) {
            dataSource.setTransactionIsolation(isolation);
        }
        try (Connection c = dataSource.getConnection()) {
            dialect = JdbcDialect.fromProductName(c.getMetaData().getDatabaseProductName());
            createLeaseTables(c);
        } catch (SQLException | RuntimeException e) {
            // a store that cannot start keeps no connections of a shared database open
            dataSource.close();
            throw e;
        }
        jdbc = JdbcClient.create(dataSource);
    }

    /** Creates idworker's lease tables from the DDL it ships for the database's dialect. */
    private void createLeaseTables(Connection c) throws SQLException {
        JdbcSchema schema = new JdbcSchema("lease/jdbc", "idworker_worker_slot", "idworker_worker_slot",
                "idworker.jdbc.initialize-schema", Map.of());
        for (String statement : schema.statements(dialect)) {
            try (Statement s = c.createStatement()) {
                s.execute(statement);
            }
        }
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    @Override
    public long centreNowMillis() {
        return jdbc.sql("SELECT " + dialect.nowMillis()).query(Long.class).single();
    }

    /**
     * Inserts the namespace record the first borrow would have written ten minutes ago by the database's clock:
     * the layout, the guard {@code ttl + maxSkew}, no slot ids yet.
     */
    @Override
    public void createAgedNamespace(String namespace, int slotCount, String layout, Duration ttl, Duration maxSkew) {
        jdbc.sql("INSERT INTO idworker_worker_slot_ns (ns, layout, guard_ms, slots_created, created_at) "
                        + "VALUES (?, ?, ?, 0, ?)")
                .params(namespace, layout, ttl.toMillis() + maxSkew.toMillis(),
                        centreNowMillis() - Duration.ofMinutes(10).toMillis())
                .update();
    }

    @Override
    public ISequenceManager newManager() {
        return newManager(dataSource);
    }

    /** A centre over {@code through}, a data source in front of this store's (one that pauses a statement). */
    ISequenceManager newManager(DataSource through) {
        Configuration configuration = new Configuration(
                new Environment("contract", new SpringManagedTransactionFactory(), through));
        configuration.addMapper(WorkerSlotMapper.class);
        SqlSessionFactory factory = new SqlSessionFactoryBuilder().build(configuration);
        WorkerSlotMapper mapper = new SqlSessionTemplate(factory).getMapper(WorkerSlotMapper.class);
        return new MyBatisSequenceManager(mapper, through, dialect);
    }

    @Override
    public void expireLease(String namespace, int workerId) {
        retried(() -> jdbc.sql("UPDATE idworker_worker_slot SET expires_at = 0 WHERE ns = ? AND slot_id = ?")
                .params(namespace, workerId).update());
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
    public void deleteSlotRecord(String namespace, int workerId) {
        retried(() -> jdbc.sql("DELETE FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?").params(namespace, workerId)
                .update());
    }

    /** Another session holds the slot's row locked ({@code SELECT … FOR UPDATE}) until the handle is closed. */
    @Override
    public AutoCloseable stall(String namespace, int workerId) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT slot_id FROM idworker_worker_slot WHERE ns = ? AND slot_id = ? FOR UPDATE")) {
                ps.setString(1, namespace);
                ps.setInt(2, workerId);
                ps.executeQuery().close();
            }
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return () -> {
            try (c) {
                c.rollback();
            }
        };
    }

    @Override
    public void deleteNamespace(String namespace) {
        retried(() -> jdbc.sql("DELETE FROM idworker_worker_slot WHERE ns = ?").param(namespace).update());
        retried(() -> jdbc.sql("DELETE FROM idworker_worker_slot_ns WHERE ns = ?").param(namespace).update());
    }

    /**
     * Runs a cleanup statement again after a serialization failure: a pool whose default is REPEATABLE READ fails
     * a delete that meets a row a closing worker just returned.
     */
    private static void retried(Runnable statement) {
        for (int attempt = 1; ; attempt++) {
            try {
                statement.run();
                return;
            } catch (ConcurrencyFailureException e) {
                if (attempt >= 5) {
                    throw e;
                }
                try {
                    Thread.sleep(20L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
