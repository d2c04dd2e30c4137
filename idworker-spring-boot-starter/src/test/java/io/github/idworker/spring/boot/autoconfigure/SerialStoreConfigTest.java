package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@code @EnableSerialNumbers} sets up in either mode, over a real H2 database, one fresh database per test:
 * the store {@code serialStore}, the rule lookup {@code serialRules}, the rule table, and the rules configured
 * under {@code idworker.serial.rules}: registered at startup, the table winning, and every bad rule failing the
 * startup with its property named. The mode here is {@link SerialMode#LOCAL}, which needs no Redis; the strict
 * mode shares this configuration ({@link RedisSerialNumbersConfigTest}).
 */
class SerialStoreConfigTest {

    /**
     * The serial tables as applications created them before reserved_to existed, with one rule's period as an older
     * version left it: numbers 1 to 40 of 20261123 reserved.
     */
    private static final ShippedSchema OLD_SERIAL_TABLES =
            ShippedSchema.of("serial/jdbc", "idworker_serial_rule", "old_serial").without("reserved_to")
                    .with("INSERT INTO old_serial_period (rule_name, period, high_water) VALUES ('order', '20261123', 40)");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class SerialApp {
    }

    private ApplicationContextRunner serials(String url) {
        return runner.withUserConfiguration(SerialApp.class).withPropertyValues("spring.datasource.url=" + url);
    }

    private static final String[] ORDER = {"idworker.serial.rules.order.prefix=ORD",
            "idworker.serial.rules.order.date-pattern=yyyyMMdd", "idworker.serial.rules.order.width=6",
            "idworker.serial.rules.order.reset=daily", "idworker.serial.rules.order.zone=Asia/Shanghai"};

    @Test
    void configuredRulesAreRegisteredInTheDefaultTableWhichIsCreatedOnH2() {
        String url = TestNames.h2Url();
        serials(url).withPropertyValues(ORDER).withPropertyValues("idworker.serial.rules.invoice.prefix=INV-",
                "idworker.serial.rules.invoice.width=8").run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcSerialStore store = context.getBean(JdbcSerialStore.class);
                    assertThat(context.getBean("serialStore")).isSameAs(store);
                    assertThat(context.getBean("serialRules")).isInstanceOf(SerialRules.class);
                    assertThat(store.tableName()).isEqualTo("idworker_serial_rule");
                    assertThat(store.periodTableName()).isEqualTo("idworker_serial_rule_period");

                    SerialRule order = store.find("order").orElseThrow();
                    assertThat(order.prefix()).isEqualTo("ORD");
                    assertThat(order.datePattern()).isEqualTo("yyyyMMdd");
                    assertThat(order.width()).isEqualTo(6);
                    assertThat(order.reset()).isEqualTo(SerialReset.DAILY);
                    assertThat(order.zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
                    assertThat(order.start()).isEqualTo(1);
                    assertThat(order.max()).isEqualTo(999_999);
                    assertThat(order.minBatch()).isEqualTo(SerialRule.DEFAULT_MIN_BATCH);
                    assertThat(order.maxBatch()).isEqualTo(SerialRule.DEFAULT_MAX_BATCH);

                    SerialRule invoice = store.find("invoice").orElseThrow();
                    assertThat(invoice.format(invoice.dateText(invoice.date(0)), 42)).isEqualTo("INV-00000042");
                    assertThat(invoice.reset()).isEqualTo(SerialReset.NEVER);

                    assertThat(context.getBean(SerialRuleRegistration.class).registered()).extracting(SerialRule::name)
                            .containsExactly("order", "invoice");
                    assertThat(context.getBean(SerialRules.class).names()).contains("order", "invoice");
                });
    }

    @Test
    void everySettingOfARuleAndTheStoreReachesTheTable() {
        String url = TestNames.h2Url();
        serials(url).withPropertyValues("idworker.serial.table=app_serial", "idworker.serial.initialize-schema=always",
                        "idworker.serial.rule-refresh=5s", "idworker.jdbc.statement-timeout=3s",
                        "idworker.jdbc.network-timeout=7s",
                        "idworker.serial.rules.ticket.prefix=T_", "idworker.serial.rules.ticket.date-pattern=yyyyMM",
                        "idworker.serial.rules.ticket.width=5", "idworker.serial.rules.ticket.start=100",
                        "idworker.serial.rules.ticket.max=90000", "idworker.serial.rules.ticket.reset=monthly",
                        "idworker.serial.rules.ticket.zone=Europe/Berlin", "idworker.serial.rules.ticket.critical=20",
                        "idworker.serial.rules.ticket.min-batch=50", "idworker.serial.rules.ticket.max-batch=400")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcSerialStore store = context.getBean(JdbcSerialStore.class);
                    assertThat(store.tableName()).isEqualTo("app_serial");
                    assertThat(SerialRuleRegistration.build("ticket", context.getBean(IdWorkerProperties.class)
                            .getSerial().getRules().get("ticket"))).isEqualTo(SerialRule.builder("ticket").prefix("T_")
                            .datePattern("yyyyMM").width(5).start(100).max(90000).reset(SerialReset.MONTHLY)
                            .zone("Europe/Berlin").critical(20).minBatch(50).maxBatch(400).build());
                    assertThat(store.find("ticket").orElseThrow().toString()).isEqualTo("SerialRule[ticket: prefix "
                            + "'T_', date-pattern 'yyyyMM', width 5, start 100, max 90000, reset monthly, zone "
                            + "Europe/Berlin, critical 20, batch 50..400]");
                    assertThat(context.getBean(IdWorkerProperties.class).getSerial().getRuleRefresh())
                            .isEqualTo(Duration.ofSeconds(5));
                    try (Connection c = context.getBean(DataSource.class).getConnection()) {
                        assertThat(tableExists(c, "APP_SERIAL")).isTrue();
                        assertThat(tableExists(c, "APP_SERIAL_PERIOD")).isTrue();
                        assertThat(tableExists(c, "IDWORKER_SERIAL_RULE")).as("default table").isFalse();
                    }
                });
    }

    @Test
    void aRestartKeepsWhatTheTableHoldsAndOnlyWarnsAboutTunedValues() throws Exception {
        String url = TestNames.h2Url();
        ApplicationContextRunner app = serials(url).withPropertyValues(ORDER);
        app.withPropertyValues("idworker.serial.rules.order.max-batch=500").run(context ->
                assertThat(context).hasNotFailed());
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE idworker_serial_rule SET max_number = 5000 WHERE rule_name = 'order'");
        }
        app.withPropertyValues("idworker.serial.rules.order.max-batch=800").run(context -> {
            assertThat(context).hasNotFailed();
            SerialRule held = context.getBean(SerialRules.class).get("order");
            assertThat(held.maxBatch()).as("the table wins").isEqualTo(500);
            assertThat(held.max()).as("tuned by an operator in the table").isEqualTo(5000);
            assertThat(context.getBean(SerialRuleRegistration.class).registered()).containsExactly(held);
        });
    }

    @Test
    void aChangedShapeFailsStartupNamingThePropertyAndTheTable() {
        String url = TestNames.h2Url();
        serials(url).withPropertyValues(ORDER).run(context -> assertThat(context).hasNotFailed());
        serials(url).withPropertyValues(ORDER).withPropertyValues("idworker.serial.rules.order.width=8").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.serial.rules.order.width");
            assertThat(cause.getMessage()).contains("'8'").contains("idworker_serial_rule holds '6'")
                    .contains("new rule with a prefix of its own");
            FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("serialRuleRegistration")
                    .contains("idworker.serial.rules.order.width");
            assertThat(analysis.getAction()).contains("idworker.serial.rules.order.width");
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            daily reset without the day in the date    | order.date-pattern=yyyyMM,order.reset=daily,order.width=6,order.zone=UTC | order.reset      | needs a date-pattern holding yyyy, MM, dd
            max wider than width                       | order.width=4,order.max=10000                                            | order.max        | 10000 has more digits than width 4 allows; at most 9999
            unknown zone                               | order.width=6,order.date-pattern=yyyyMMdd,order.zone=Mars/Olympus        | order.zone       | unknown zone 'Mars/Olympus'
            prefix with a brace                        | order.width=6,order.prefix={ORD                                          | order.prefix     | was '{ORD'
            prefix with a space                        | order.width=6,order.prefix=OR D                                          | order.prefix     | was 'OR D'
            missing width                              | order.prefix=ORD                                                         | order.width      | is required
            max-batch below min-batch                  | order.width=6,order.min-batch=500,order.max-batch=100                    | order.max-batch  | must be min-batch (500) to 1000000, was 100
            date pattern of variable width             | order.width=6,order.date-pattern=yyyy-M-d,order.zone=UTC                 | order.date-pattern | was 'yyyy-M-d'
            date without a zone                        | order.width=6,order.date-pattern=yyyyMMdd                                | order.zone       | is required for a rule with a date or a reset
            width past 15 digits                       | order.width=16                                                           | order.width      | must be 1 to 15, was 16
            start past max                             | order.width=3,order.start=500,order.max=100                              | order.max        | must be at least start 500, was 100
            critical at max-batch                      | order.width=6,order.critical=100,order.max-batch=100                     | order.critical   | was 100
            """)
    void aBadRuleFailsStartupNamingItsPropertyAndNothingIsRegistered(String what, String settings, String field,
                                                                      String message) {
        String url = TestNames.h2Url();
        String[] properties = java.util.Arrays.stream(settings.split(","))
                .map(p -> "idworker.serial.rules." + p).toArray(String[]::new);
        serials(url).withPropertyValues(properties).withPropertyValues("idworker.serial.rules.invoice.width=8")
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    IdWorkerConfigurationException cause = StartupFailures.cause(failure,
                            IdWorkerConfigurationException.class);
                    String property = "idworker.serial.rules." + field;
                    assertThat(cause.getProperty()).as(what).isEqualTo(property);
                    assertThat(cause.getMessage()).as(what).startsWith(property + ": ").contains(message);
                    FailureAnalysis analysis = StartupFailures.analysis(failure);
                    assertThat(analysis.getDescription()).contains(property);
                    assertThat(analysis.getAction()).contains("correct '" + property + "'");
                });
        // every rule is checked before any is written: the good rule "invoice" was not registered either
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM idworker_serial_rule")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isZero();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aResetThatIsNoneOfTheFourFailsBindingNamingTheProperty() {
        serials(TestNames.h2Url()).withPropertyValues("idworker.serial.rules.order.width=6",
                "idworker.serial.rules.order.reset=weekly").run(context -> {
                    assertThat(context).hasFailed();
                    BindException bind = null;
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        if (t instanceof BindException b) {
                            bind = b;
                        }
                    }
                    assertThat(bind).as("bind failure").isNotNull();
                    assertThat(bind.getProperty().getName().toString()).isEqualTo("idworker.serial.rules.order.reset");
                    assertThat(bind.getProperty().getValue()).isEqualTo("weekly");
                });
    }

    @Test
    void aRuleNameOutsideTheAllowedCharactersFailsNamingIt() {
        serials(TestNames.h2Url()).withPropertyValues("idworker.serial.rules[or.der].width=6").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.serial.rules.or.der");
            assertThat(cause.getMessage()).contains("1 to 64 letters, digits, '_' or '-'");
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.serial.rule-refresh=0s       | idworker.serial.rule-refresh
            idworker.serial.table=serials;drop    | idworker.serial.table
            idworker.jdbc.network-timeout=1s      | idworker.jdbc.network-timeout
            """)
    void badStoreValuesFailStartupNamingTheProperty(String properties, String property) {
        serials(TestNames.h2Url()).withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                    .getProperty()).isEqualTo(property);
            assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction()).contains(property);
        });
    }

    @Test
    void missingTablesWithoutSchemaInitializationFailNamingTheProperty() {
        serials(TestNames.h2Url()).withPropertyValues("idworker.serial.initialize-schema=never").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.serial.initialize-schema");
            assertThat(cause.getMessage()).contains("idworker_serial_rule");
            FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("serialStore");
            assertThat(analysis.getAction()).contains("idworker.serial.initialize-schema=always")
                    .contains("\"_period\"");
        });
    }

    @Test
    void tablesCreatedBySpringSqlInitAreFoundWithSchemaInitializationNever() {
        String url = TestNames.h2Url();
        serials(url).withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + ShippedSchema.of("serial/jdbc", "idworker_serial_rule", "app_serial_rule").location(),
                        "idworker.serial.table=app_serial_rule", "idworker.serial.initialize-schema=never")
                .withPropertyValues(ORDER)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(JdbcSerialStore.class).find("order")).isPresent();
                });
    }

    /** A period table created before reserved_to existed, by the application's own DDL: startup says how to upgrade it. */
    @Test
    void aPeriodTableWithoutReservedToFailsStartupQuotingTheStatementsThatAddIt() {
        serials(TestNames.h2Url())
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_SERIAL_TABLES.location(),
                        "idworker.serial.table=old_serial", "idworker.serial.initialize-schema=never")
                .withPropertyValues(ORDER)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.serial.initialize-schema");
                    assertThat(cause.getMessage()).contains("'old_serial_period'", "lacks column reserved_to",
                            "ALTER TABLE old_serial_period ADD COLUMN reserved_to BIGINT; UPDATE old_serial_period "
                                    + "SET reserved_to = high_water WHERE reserved_to IS NULL");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("ALTER TABLE old_serial_period ADD COLUMN reserved_to");
                    assertThat(analysis.getAction()).contains("Add the column")
                            .contains("idworker.serial.initialize-schema=always");
                });
    }

    /**
     * The same tables with initialize-schema=always: the column is added and seeded from high_water at startup,
     * so a high_water lowered by hand right afterwards is refused.
     */
    @Test
    void aPeriodTableWithoutReservedToIsUpgradedAtStartupWithSchemaInitializationAlways() {
        serials(TestNames.h2Url())
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_SERIAL_TABLES.location(),
                        "idworker.serial.table=old_serial", "idworker.serial.initialize-schema=always")
                .withPropertyValues(ORDER)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DataSource dataSource = context.getBean(DataSource.class);
                    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
                         ResultSet rs = st.executeQuery("SELECT reserved_to FROM old_serial_period "
                                 + "WHERE rule_name = 'order' AND period = '20261123'")) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getLong(1)).as("seeded from high_water").isEqualTo(40);
                    }
                    JdbcSerialStore store = context.getBean(JdbcSerialStore.class);
                    SerialRule order = store.find("order").orElseThrow();
                    assertThat(store.reserve(order, "20261123", 10)).isEqualTo(new SerialRange("order", "20261123", 41, 50));
                    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
                        st.executeUpdate("UPDATE old_serial_period SET high_water = 5 WHERE rule_name = 'order'");
                    }
                    assertThatThrownBy(() -> store.reserve(order, "20261123", 1))
                            .isInstanceOf(SerialPeriodMovedBackException.class)
                            .hasMessageContaining("reserved_to 50");
                });
    }

    @Test
    void withoutADataSourceStartupFailsNamingSpringDatasource() {
        new ApplicationContextRunner().withUserConfiguration(SerialApp.class).run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("spring.datasource.url");
            assertThat(cause.getMessage()).contains("@EnableSerialNumbers").contains("SerialStore bean named serialStore");
        });
    }

    /** A real JDBC store over its own table that records what it is asked. */
    static class RecordingStore extends JdbcSerialStore {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingStore(DataSource dataSource) {
            super(dataSource, "custom_serial", JdbcTimeouts.defaults());
        }

        @Override
        public SerialRule register(SerialRule rule) {
            calls.add("register " + rule.name());
            return super.register(rule);
        }

        @Override
        public SerialRange reserve(SerialRule rule, String period, int count) {
            calls.add("reserve " + rule.name() + " " + period);
            return super.reserve(rule, period, count);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class CustomStoreApp {

        @Bean
        RecordingStore serialStore(DataSource dataSource) {
            RecordingStore store = new RecordingStore(dataSource);
            store.createSchemaIfMissing();
            return store;
        }
    }

    @Test
    void aUserBeanNamedSerialStoreReplacesTheDefaultAndIsTheOneRulesAndNumbersUse() {
        runner.withUserConfiguration(CustomStoreApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.serial.rules.invoice.width=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(JdbcSerialStore.class);
                    RecordingStore store = context.getBean(RecordingStore.class);
                    assertThat(context.getBean("serialStore")).isSameAs(store);
                    assertThat(context.getBean(io.github.idworker.serial.SerialNumbers.class).next("invoice"))
                            .isEqualTo("00000001");
                    assertThat(store.calls).containsExactly("register invoice", "reserve invoice all");
                    try (Connection c = context.getBean(DataSource.class).getConnection()) {
                        assertThat(tableExists(c, "IDWORKER_SERIAL_RULE"))
                                .as("the default store never ran, so the default table was never created").isFalse();
                    }
                });
    }

    static boolean tableExists(Connection c, String table) throws SQLException {
        try (ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
            return rs.next();
        }
    }
}
