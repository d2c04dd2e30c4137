package io.github.idworker.test.segment;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentRowMovedBackException;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
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
 * A segment table created before {@code high_water} existed: startup refuses it with the statements that add the
 * column; those statements, or {@code initialize-schema} (run by four starting nodes at once), add it and seed
 * it with each row's {@code max_id}, so a row moved back right after the upgrade is refused; rows a node of the
 * old version keeps writing (no {@code high_water}) still allocate.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractSegmentSchemaUpgradeTest {

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
        table = "seg_up_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        // the table as idworker created it before high_water existed
        sql("CREATE TABLE " + table + " (biz_tag VARCHAR(128) NOT NULL, max_id BIGINT NOT NULL, step INT NOT NULL,"
                + " description VARCHAR(256), update_time TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,"
                + " PRIMARY KEY (biz_tag))");
        sql("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('used', 5000, 100)");
        sql("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('idle', 7000, 100)");
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

    private JdbcSegmentAllocator allocator() {
        return new JdbcSegmentAllocator(dataSource, table, false);
    }

    @Test
    void anOldTableIsRefusedWithTheStatementsThatUpgradeItAndTheyWork() throws SQLException {
        JdbcSegmentAllocator allocator = allocator();
        List<String> upgrade = allocator.highWaterUpgradeSql();
        assertThat(upgrade).containsExactly("ALTER TABLE " + table + " ADD COLUMN high_water BIGINT",
                "UPDATE " + table + " SET high_water = max_id WHERE high_water IS NULL");
        assertThatThrownBy(allocator::verifySchema)
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo(JdbcSegmentAllocator.INITIALIZE_SCHEMA_PROPERTY))
                .hasMessageContaining("'" + table + "'")
                .hasMessageContaining("lacks column high_water")
                .hasMessageContaining(upgrade.get(0) + "; " + upgrade.get(1))
                .hasMessageContaining(JdbcSegmentAllocator.INITIALIZE_SCHEMA_PROPERTY + "=always");

        for (String statement : upgrade) { // what an operator or a migration runs
            sql(statement);
        }
        allocator.verifySchema();
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
                    JdbcSegmentAllocator allocator = allocator();
                    allocator.createSchemaIfMissing();
                    allocator.verifySchema();
                    return null;
                }));
            }
            for (Future<?> node : nodes) {
                node.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        allocator().createSchemaIfMissing(); // and again at the next start: nothing to do
        assertUpgraded();
    }

    /**
     * Every start runs initialize-schema, and once the table is upgraded a start only reads it (the whole-table
     * fill ran at every start, and once timed out in CI beside 16 threads allocating); a row without high_water
     * that a node of the old version inserts after the upgrade is still filled in at the next start.
     */
    @Test
    void aRowInsertedWithoutTheColumnAfterTheUpgradeIsFilledInAtTheNextStart() throws SQLException {
        allocator().createSchemaIfMissing();
        sql("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('later', 900, 10)");
        allocator().createSchemaIfMissing();
        sql("UPDATE " + table + " SET max_id = 10 WHERE biz_tag = 'later'");
        assertThatThrownBy(() -> allocator().allocate("later", 10)).isInstanceOf(SegmentRowMovedBackException.class);
    }

    /** The seeded high-water refuses a row moved back at once; rows an old node writes still allocate. */
    private void assertUpgraded() throws SQLException {
        JdbcSegmentAllocator allocator = allocator();
        assertThat(allocator.allocate("used", 100).firstId()).isEqualTo(5_001);
        sql("UPDATE " + table + " SET max_id = 3000 WHERE biz_tag = 'idle'"); // no range since the upgrade
        assertThatThrownBy(() -> allocator().allocate("idle", 100))
                .isInstanceOfSatisfying(SegmentRowMovedBackException.class, e -> {
                    assertThat(e.getTable()).isEqualTo(table);
                    assertThat(e.getMaxId()).isEqualTo(3_000);
                    assertThat(e.getHighWater()).isEqualTo(7_000);
                });
        // a node of the old version still running: inserts without high_water, allocates without raising it
        sql("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('old', 100, 10)");
        sql("UPDATE " + table + " SET max_id = max_id + 10 WHERE biz_tag = 'used'");
        assertThat(allocator.allocate("old", 10).firstId()).isEqualTo(101);
        assertThat(allocator.allocate("used", 10).firstId()).isEqualTo(5_111);
        sql("UPDATE " + table + " SET max_id = 50 WHERE biz_tag = 'old'");
        assertThatThrownBy(() -> allocator().allocate("old", 10)).isInstanceOf(SegmentRowMovedBackException.class);
    }
}
