package io.github.idworker.test.serial;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.time.LocalDate;
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
 * A serial period table created before {@code reserved_to} existed: startup refuses it with the statements that
 * add the column; those statements, or {@code initialize-schema} (run by four starting nodes at once), add it and
 * seed it with each row's {@code high_water}, so a period moved back right after the upgrade is refused; rows a
 * node of the old version keeps writing (no {@code reserved_to}) still reserve.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractSerialSchemaUpgradeTest {

    private HikariDataSource dataSource;
    private String table;
    private String periodTable;
    private final SerialRule rule = SerialRule.builder("order").prefix("ORD").datePattern("yyyyMMdd").width(6)
            .reset(SerialReset.DAILY).zone("Asia/Shanghai").build();
    /** Three periods of the rule: one in use, one idle since the upgrade, one an old node opens. */
    private static final LocalDate TODAY = LocalDate.now(ZoneOffset.UTC);
    private static final String USED = TODAY.format(DateTimeFormatter.BASIC_ISO_DATE);
    private static final String IDLE = TODAY.plusDays(1).format(DateTimeFormatter.BASIC_ISO_DATE);
    private static final String OLD = TODAY.plusDays(2).format(DateTimeFormatter.BASIC_ISO_DATE);

    protected abstract String jdbcUrl();

    protected abstract String user();

    @BeforeEach
    void createOldTables() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(user());
        config.setPassword("");
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(1);
        dataSource = new HikariDataSource(config);
        table = "ser_up_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        periodTable = table + JdbcSerialStore.PERIOD_TABLE_SUFFIX;
        // the tables as idworker created them before reserved_to existed
        sql("CREATE TABLE " + table + " (rule_name VARCHAR(64) NOT NULL, prefix VARCHAR(32) NOT NULL,"
                + " date_pattern VARCHAR(16) NOT NULL, width INT NOT NULL, start_number BIGINT NOT NULL,"
                + " max_number BIGINT NOT NULL, reset_period VARCHAR(8) NOT NULL, zone_id VARCHAR(64) NOT NULL,"
                + " critical INT NOT NULL, min_batch INT NOT NULL, max_batch INT NOT NULL, shape VARCHAR(200),"
                + " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL, PRIMARY KEY (rule_name))");
        sql("CREATE TABLE " + periodTable + " (rule_name VARCHAR(64) NOT NULL, period VARCHAR(8) NOT NULL,"
                + " high_water BIGINT NOT NULL, update_time TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,"
                + " PRIMARY KEY (rule_name, period))");
        sql("INSERT INTO " + periodTable + " (rule_name, period, high_water) VALUES ('order', '" + USED + "', 5000)");
        sql("INSERT INTO " + periodTable + " (rule_name, period, high_water) VALUES ('order', '" + IDLE + "', 7000)");
    }

    @AfterEach
    void dropTables() throws SQLException {
        try {
            sql("DROP TABLE " + periodTable);
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

    private JdbcSerialStore store() {
        return new JdbcSerialStore(dataSource, table, JdbcTimeouts.defaults());
    }

    @Test
    void anOldTableIsRefusedWithTheStatementsThatUpgradeItAndTheyWork() throws SQLException {
        JdbcSerialStore store = store();
        List<String> upgrade = store.reservedToUpgradeSql();
        assertThat(upgrade).containsExactly("ALTER TABLE " + periodTable + " ADD COLUMN reserved_to BIGINT",
                "UPDATE " + periodTable + " SET reserved_to = high_water WHERE reserved_to IS NULL");
        assertThatThrownBy(store::verifySchema)
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo(JdbcSerialStore.INITIALIZE_SCHEMA_PROPERTY))
                .hasMessageContaining("'" + periodTable + "'")
                .hasMessageContaining("lacks column reserved_to")
                .hasMessageContaining(upgrade.get(0) + "; " + upgrade.get(1))
                .hasMessageContaining(JdbcSerialStore.INITIALIZE_SCHEMA_PROPERTY + "=always");

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
                    JdbcSerialStore store = store();
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

    /** The seeded reserved_to refuses a period moved back at once; rows an old node writes still reserve. */
    private void assertUpgraded() throws SQLException {
        JdbcSerialStore store = store();
        store.register(rule);
        assertThat(store.reserve(rule, USED, 100)).isEqualTo(new SerialRange("order", USED, 5_001, 5_100));
        sql("UPDATE " + periodTable + " SET high_water = 3000 WHERE period = '" + IDLE + "'"); // idle since
        assertThatThrownBy(() -> store().reserve(rule, IDLE, 100))
                .isInstanceOfSatisfying(SerialPeriodMovedBackException.class, e -> {
                    assertThat(e.getTable()).isEqualTo(periodTable);
                    assertThat(e.getHighWater()).isEqualTo(3_000);
                    assertThat(e.getReservedTo()).isEqualTo(7_000);
                });
        // a node of the old version still running: inserts without reserved_to, reserves without raising it
        sql("INSERT INTO " + periodTable + " (rule_name, period, high_water) VALUES ('order', '" + OLD + "', 100)");
        sql("UPDATE " + periodTable + " SET high_water = high_water + 10 WHERE period = '" + USED + "'");
        assertThat(store.reserve(rule, OLD, 10).first()).isEqualTo(101);
        assertThat(store.reserve(rule, USED, 10).first()).isEqualTo(5_111);
        sql("UPDATE " + periodTable + " SET high_water = 50 WHERE period = '" + OLD + "'");
        assertThatThrownBy(() -> store().reserve(rule, OLD, 10)).isInstanceOf(SerialPeriodMovedBackException.class);
    }
}
