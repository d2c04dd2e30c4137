package io.github.idworker.test.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolRowMovedBackException;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pool table created before {@code reserved_to} existed: startup refuses it with the statements that add the
 * column; those statements, or {@code initialize-schema} (run by four starting nodes at once), add it and seed it
 * with each row's {@code current_offset}, so a row moved back right after the upgrade is refused; rows a node of
 * the old version keeps writing (no {@code reserved_to}) still reserve.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractPoolSchemaUpgradeTest {

    private HikariDataSource dataSource;
    private String table;

    protected abstract String jdbcUrl();

    protected abstract String user();

    @BeforeEach
    void createOldTable() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(user());
        config.setPassword("");
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(1);
        dataSource = new HikariDataSource(config);
        table = "pool_up_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        // the table as idworker created it before reserved_to existed
        sql("CREATE TABLE " + table + " (entity_key VARCHAR(64) NOT NULL, name VARCHAR(128) NOT NULL,"
                + " increasing_type VARCHAR(16) NOT NULL, start_offset BIGINT NOT NULL, step INT NOT NULL,"
                + " current_offset BIGINT NOT NULL, max_per_request INT NOT NULL, max_per_second INT NOT NULL,"
                + " threshold_percent INT NOT NULL, check_interval_ms BIGINT NOT NULL, max_pool_size BIGINT NOT NULL,"
                + " max_gap INT NOT NULL, environment INT, environments INT,"
                + " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,"
                + " update_time TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL, PRIMARY KEY (entity_key))");
        insertOldRow("used", 5_000);
        insertOldRow("idle", 7_000);
    }

    /** A row as a node of the old version inserts it: no reserved_to, pinned to environment 0/1. */
    private void insertOldRow(String key, long currentOffset) throws SQLException {
        sql("INSERT INTO " + table + " (entity_key, name, increasing_type, start_offset, step, current_offset,"
                + " max_per_request, max_per_second, threshold_percent, check_interval_ms, max_pool_size, max_gap,"
                + " environment, environments) VALUES ('" + key + "', 'n', 'MONOTONIC', 1, 100, " + currentOffset
                + ", 100, 10000, 20, 1000, 2000, 0, 0, 1)");
    }

    @AfterEach
    void dropTable() throws SQLException {
        try {
            sql("DROP TABLE " + table);
        } finally {
            dataSource.close();
        }
    }

    private void sql(String statement) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }

    private JdbcPoolStore store() {
        return new JdbcPoolStore(dataSource, table, JdbcTimeouts.defaults());
    }

    @Test
    void anOldTableIsRefusedWithTheStatementsThatUpgradeItAndTheyWork() throws SQLException {
        JdbcPoolStore store = store();
        List<String> upgrade = store.reservedToUpgradeSql();
        assertThat(upgrade).containsExactly("ALTER TABLE " + table + " ADD COLUMN reserved_to BIGINT",
                "UPDATE " + table + " SET reserved_to = current_offset WHERE reserved_to IS NULL");
        assertThatThrownBy(store::verifySchema)
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo(JdbcPoolStore.INITIALIZE_SCHEMA_PROPERTY))
                .hasMessageContaining("'" + table + "'")
                .hasMessageContaining("lacks column reserved_to")
                .hasMessageContaining(upgrade.get(0) + "; " + upgrade.get(1))
                .hasMessageContaining(JdbcPoolStore.INITIALIZE_SCHEMA_PROPERTY + "=always");

        for (String statement : upgrade) { // what an operator or a migration runs
            sql(statement);
        }
        store.verifySchema();
        assertUpgraded();
    }

    @Test
    void initializeSchemaUpgradesAnOldTableOnceWhenFourNodesStartAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CyclicBarrier start = new CyclicBarrier(4);
        try {
            List<Future<?>> nodes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                nodes.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    JdbcPoolStore store = store();
                    store.createSchemaIfMissing();
                    store.verifySchema();
                    return null;
                }));
            }
            for (Future<?> node : nodes) {
                node.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        store().createSchemaIfMissing(); // and again at the next start: nothing to do
        assertUpgraded();
    }

    /** The seeded reserved_to refuses a row moved back at once; rows an old node writes still reserve. */
    private void assertUpgraded() throws SQLException {
        JdbcPoolStore store = store();
        PoolReservation used = store.reserve("used", 1, PoolEnvironment.SINGLE);
        assertThat(List.of(used.firstOffset(), used.lastOffset())).containsExactly(5_001L, 5_100L);
        sql("UPDATE " + table + " SET current_offset = 3000 WHERE entity_key = 'idle'"); // idle since the upgrade
        assertThatThrownBy(() -> store().reserve("idle", 1, PoolEnvironment.SINGLE))
                .isInstanceOfSatisfying(PoolRowMovedBackException.class, e -> {
                    assertThat(e.getTable()).isEqualTo(table);
                    assertThat(e.getCurrentOffset()).isEqualTo(3_000);
                    assertThat(e.getReservedTo()).isEqualTo(7_000);
                });
        // a node of the old version still running: inserts without reserved_to, reserves without raising it
        insertOldRow("old", 100);
        sql("UPDATE " + table + " SET current_offset = current_offset + 100 WHERE entity_key = 'used'");
        assertThat(store.reserve("old", 1, PoolEnvironment.SINGLE).firstOffset()).isEqualTo(101);
        assertThat(store.reserve("used", 1, PoolEnvironment.SINGLE).firstOffset()).isEqualTo(5_201);
        sql("UPDATE " + table + " SET current_offset = 50 WHERE entity_key = 'old'");
        assertThatThrownBy(() -> store().reserve("old", 1, PoolEnvironment.SINGLE))
                .isInstanceOf(PoolRowMovedBackException.class);
    }
}
