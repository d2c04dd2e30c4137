package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @EnableSegmentIdGenerators} over a real H2 database, one fresh database per test: the allocator, the
 * in-process lookup {@code segmentIdGenerators}, tag registration, schema initialisation and bad values.
 */
class SegmentIdGeneratorsConfigTest {

    /** The segment table as applications created it before high_water existed, with the row an older version left. */
    private static final ShippedSchema OLD_SEGMENT_TABLE =
            ShippedSchema.of("segment/jdbc", "idworker_segment", "old_segment").without("high_water")
                    .with("INSERT INTO old_segment (biz_tag, max_id, step) VALUES ('order', 5000, 100)");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class SegmentApp {
    }

    private ApplicationContextRunner segments(String url) {
        return runner.withUserConfiguration(SegmentApp.class).withPropertyValues("spring.datasource.url=" + url);
    }

    @Test
    void defaultsRegisterAJdbcAllocatorAndTheInProcessLookupOnly() {
        String url = TestNames.h2Url();
        segments(url).withPropertyValues("idworker.segment.tags.order.start-after=1000").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("segmentAllocator")).isInstanceOf(JdbcSegmentAllocator.class);
            assertThat(context.getBean("segmentIdGenerators")).isInstanceOf(SegmentIdGenerators.class);
            assertThat(context).hasSingleBean(SegmentIdGenerators.class);
            assertThat(context).doesNotHaveBean("redisSequenceGenerators").doesNotHaveBean(RedisSequenceGenerators.class);
            assertThat(context).doesNotHaveBean("dbIdWorker").doesNotHaveBean("dbSequenceManager");

            JdbcSegmentAllocator allocator = context.getBean(JdbcSegmentAllocator.class);
            assertThat(allocator.tableName()).isEqualTo("idworker_segment");
            assertThat(allocator.isAutoCreateTags()).isFalse();

            SegmentIdGenerators generators = context.getBean(SegmentIdGenerators.class);
            long[] ids = generators.nextIds("order", 5000);
            assertThat(ids[0]).as("first number after start-after").isEqualTo(1001);
            assertThat(ids).isSorted().doesNotHaveDuplicates();
            assertThat(generators.nextId("order")).isEqualTo(6001);

            SegmentIdGenerator order = (SegmentIdGenerator) generators.forTag("order");
            assertThat(order.options().minStep()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MIN_STEP);
            assertThat(order.options().maxStep()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MAX_STEP);
            assertThat(order.options().maxWait()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MAX_WAIT);

            // initialize-schema=embedded created the table on H2, and the tag's row is in it
            try (Connection c = context.getBean(DataSource.class).getConnection()) {
                assertThat(maxId(c, "idworker_segment", "order")).isGreaterThanOrEqualTo(6001);
            }
        });
    }

    @Test
    void propertiesReachTheAllocatorTheTagsAndTheGenerators() {
        String url = TestNames.h2Url();
        segments(url).withPropertyValues("idworker.segment.table=my_segments",
                        "idworker.segment.initialize-schema=always", "idworker.segment.auto-create=true",
                        "idworker.segment.min-step=10", "idworker.segment.max-step=500",
                        "idworker.segment.initial-step=50", "idworker.segment.prefetch-threshold=0.5",
                        "idworker.segment.target-lifetime=1m", "idworker.segment.max-wait=250ms",
                        "idworker.segment.min-load-lifetime=200ms", "idworker.segment.max-steps-per-load=7",
                        "idworker.segment.tags.invoice.start-after=70000", "idworker.segment.tags.invoice.step=25",
                        "idworker.segment.tags.invoice.description=invoice numbers",
                        "idworker.segment.tags.ticket.step=5", "idworker.jdbc.statement-timeout=3s",
                        "idworker.jdbc.network-timeout=7s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcSegmentAllocator allocator = context.getBean(JdbcSegmentAllocator.class);
                    assertThat(allocator.tableName()).isEqualTo("my_segments");
                    assertThat(allocator.timeouts())
                            .isEqualTo(new JdbcTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(7)));
                    assertThat(allocator.isAutoCreateTags()).isTrue();

                    SegmentIdGenerators generators = context.getBean(SegmentIdGenerators.class);
                    assertThat(generators.nextId("invoice")).isEqualTo(70001);
                    assertThat(generators.nextId("ticket")).isEqualTo(1);
                    assertThat(generators.nextId("created-on-first-use")).isEqualTo(1);
                    SegmentIdGenerator invoice = (SegmentIdGenerator) generators.forTag("invoice");
                    SegmentGeneratorOptions options = invoice.options();
                    assertThat(options.minStep()).isEqualTo(10);
                    assertThat(options.maxStep()).isEqualTo(500);
                    assertThat(options.initialStep()).isEqualTo(50);
                    assertThat(options.prefetchThreshold()).isEqualTo(0.5);
                    assertThat(options.targetLifetime()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(options.maxWait()).isEqualTo(Duration.ofMillis(250));
                    assertThat(options.minLoadLifetime()).isEqualTo(Duration.ofMillis(200));
                    assertThat(options.maxStepsPerLoad()).isEqualTo(7);
                    assertThat(invoice.currentSegment()).isEqualTo(new Segment("invoice", 70050, 50));

                    try (Connection c = context.getBean(DataSource.class).getConnection();
                         PreparedStatement ps = c.prepareStatement(
                                 "SELECT step, description FROM my_segments WHERE biz_tag = ?")) {
                        ps.setString(1, "invoice");
                        try (ResultSet rs = ps.executeQuery()) {
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getInt(1)).isEqualTo(25);
                            assertThat(rs.getString(2)).isEqualTo("invoice numbers");
                        }
                        assertThat(tableExists(c, "IDWORKER_SEGMENT")).as("default table").isFalse();
                    }
                });
    }

    @Test
    void registrationLeavesAnExistingTagAlone() throws Exception {
        String url = TestNames.h2Url();
        ApplicationContextRunner app = segments(url).withPropertyValues("idworker.segment.tags.order.start-after=100");
        long[] last = new long[1];
        app.run(context -> last[0] = context.getBean(SegmentIdGenerators.class).nextIds("order", 10)[9]);
        assertThat(last[0]).isEqualTo(110);
        // a restart with the same (or a lower) start-after neither resets nor reuses numbers
        app.withPropertyValues("idworker.segment.tags.order.start-after=0").run(context ->
                assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isGreaterThan(last[0]));
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            assertThat(maxId(c, "idworker_segment", "order")).isGreaterThan(last[0]);
        }
    }

    @Test
    void anUnknownTagWithAutoCreateOffFailsNamingTheTagAndIsForgotten() {
        segments(TestNames.h2Url()).run(context -> {
            SegmentIdGenerators generators = context.getBean(SegmentIdGenerators.class);
            assertThatThrownBy(() -> generators.nextId("no-such-tag"))
                    .isInstanceOfSatisfying(UnknownSegmentTagException.class, e -> {
                        assertThat(e.getBizTag()).isEqualTo("no-such-tag");
                        assertThat(e.getMessage()).contains("'no-such-tag'").contains("idworker.segment.auto-create")
                                .contains("idworker.segment.tags");
                    });
            assertThatThrownBy(() -> generators.nextIds("no-such-tag", 3)).isInstanceOf(UnknownSegmentTagException.class);
            assertThat(generators.tags()).doesNotContain("no-such-tag");
        });
    }

    @Test
    void closingTheContextClosesTheGeneratorsAndARestartContinuesAboveEverythingIssued() {
        String url = TestNames.h2Url();
        ApplicationContextRunner app = segments(url).withPropertyValues("idworker.segment.auto-create=true");
        long[] last = new long[1];
        app.run(context -> {
            SegmentIdGenerators generators = context.getBean(SegmentIdGenerators.class);
            last[0] = generators.nextIds("order", 1500)[1499];
            context.close();
            assertThatThrownBy(() -> generators.nextId("order")).isInstanceOf(IdWorkerException.class)
                    .hasMessageContaining("closed");
        });
        app.run(context -> assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isGreaterThan(last[0]));
    }

    /** A real JDBC allocator over its own table that records what it is asked. */
    static class RecordingAllocator extends JdbcSegmentAllocator {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingAllocator(DataSource dataSource) {
            super(dataSource, "custom_segment", true);
        }

        @Override
        public Segment allocate(String bizTag, int step) {
            calls.add("allocate " + bizTag);
            return super.allocate(bizTag, step);
        }

        @Override
        public boolean register(String bizTag, long startAfter, int defaultStep, String description) {
            calls.add("register " + bizTag);
            return super.register(bizTag, startAfter, defaultStep, description);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class CustomAllocatorApp {

        @Bean
        RecordingAllocator segmentAllocator(DataSource dataSource) {
            RecordingAllocator allocator = new RecordingAllocator(dataSource);
            allocator.createSchemaIfMissing();
            return allocator;
        }
    }

    @Test
    void aUserBeanNamedSegmentAllocatorReplacesTheDefaultAndIsTheOneTheGeneratorsUse() {
        runner.withUserConfiguration(CustomAllocatorApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.segment.tags.order.start-after=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(SegmentAllocator.class);
                    RecordingAllocator allocator = context.getBean(RecordingAllocator.class);
                    assertThat(context.getBean("segmentAllocator")).isSameAs(allocator);
                    assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isEqualTo(6);
                    assertThat(allocator.calls).containsExactly("register order", "allocate order");
                    try (Connection c = context.getBean(DataSource.class).getConnection()) {
                        assertThat(tableExists(c, "IDWORKER_SEGMENT"))
                                .as("the default allocator never ran, so the default table was never created").isFalse();
                    }
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class CustomLookupApp {

        @Bean
        SegmentIdGenerators segmentIdGenerators(SegmentAllocator segmentAllocator) {
            return new SegmentIdGenerators(tag -> new SegmentIdGenerator(segmentAllocator, "mine-" + tag,
                    SegmentGeneratorOptions.builder().minStep(7).maxStep(7).build()));
        }
    }

    @Test
    void aUserBeanNamedSegmentIdGeneratorsReplacesTheDefault() {
        runner.withUserConfiguration(CustomLookupApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.segment.auto-create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(SegmentIdGenerators.class);
                    SegmentIdGenerators generators = context.getBean(SegmentIdGenerators.class);
                    assertThat(generators.nextId("order")).isEqualTo(1);
                    assertThat(((SegmentIdGenerator) generators.forTag("order")).bizTag()).isEqualTo("mine-order");
                    assertThat(((SegmentIdGenerator) generators.forTag("order")).currentStep()).isEqualTo(7);
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @EnableSegmentIdGenerators
    static class SnowflakeAndSegmentsApp {
    }

    @Test
    void worksBesideTheSnowflakeWorkerOnTheSameDataSource() {
        runner.withUserConfiguration(SnowflakeAndSegmentsApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.namespace=" + TestNames.namespace(), "idworker.segment.auto-create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DBIdWorker.class).nextId()).isPositive();
                    assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isEqualTo(1);
                });
    }

    @Test
    void needsNoRedisClassesWithoutRedisSequences() {
        segments(TestNames.h2Url())
                .withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "redis.clients"))
                .withPropertyValues("idworker.segment.auto-create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SegmentIdGenerators.class).nextIds("order", 2)).containsExactly(1, 2);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.segment.min-step=0                                        | idworker.segment.min-step
            idworker.segment.min-step=5000,idworker.segment.max-step=1000      | idworker.segment.max-step
            idworker.segment.initial-step=10                                   | idworker.segment.initial-step
            idworker.segment.max-step=2000,idworker.segment.initial-step=3000  | idworker.segment.initial-step
            idworker.segment.prefetch-threshold=0                              | idworker.segment.prefetch-threshold
            idworker.segment.prefetch-threshold=1                              | idworker.segment.prefetch-threshold
            idworker.segment.prefetch-threshold=-0.5                           | idworker.segment.prefetch-threshold
            idworker.segment.target-lifetime=0s                                | idworker.segment.target-lifetime
            idworker.segment.max-wait=-1s                                      | idworker.segment.max-wait
            idworker.segment.min-load-lifetime=0ms                             | idworker.segment.min-load-lifetime
            idworker.segment.max-steps-per-load=0                              | idworker.segment.max-steps-per-load
            idworker.segment.table=segments;drop                               | idworker.segment.table
            idworker.segment.tags.order.start-after=-1                         | idworker.segment.tags.order.start-after
            idworker.segment.tags.order.step=0                                 | idworker.segment.tags.order.step
            idworker.jdbc.statement-timeout=0s                                 | idworker.jdbc.statement-timeout
            idworker.jdbc.network-timeout=1s                                   | idworker.jdbc.network-timeout
            """)
    void badValuesFailStartupNamingTheProperty(String properties, String property) {
        segments(TestNames.h2Url()).withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(StartupFailures.cause(failure, IdWorkerConfigurationException.class).getProperty())
                    .isEqualTo(property);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains(property);
            assertThat(analysis.getAction()).contains(property);
        });
    }

    @Test
    void aTagTooLongForTheTableFailsStartupNamingIt() {
        String tag = "t".repeat(129);
        segments(TestNames.h2Url()).withPropertyValues("idworker.segment.tags." + tag + ".start-after=0").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.segment.tags." + tag);
            assertThat(cause.getMessage()).contains("at most 128 characters");
        });
    }

    @Test
    void aMissingTableWithoutSchemaInitializationFailsNamingTheProperty() {
        segments(TestNames.h2Url()).withPropertyValues("idworker.segment.initialize-schema=never").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.segment.initialize-schema");
            assertThat(cause.getMessage()).contains("idworker_segment");
            FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("segmentAllocator").contains("idworker.segment.initialize-schema");
            assertThat(analysis.getAction()).contains("idworker.segment.initialize-schema=always");
        });
    }

    @Test
    void aTableCreatedBySpringSqlInitIsFoundWithSchemaInitializationNever() {
        segments(TestNames.h2Url())
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + ShippedSchema.of("segment/jdbc", "idworker_segment", "app_segment").location(),
                        "idworker.segment.table=app_segment", "idworker.segment.initialize-schema=never",
                        "idworker.segment.tags.order.start-after=41")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isEqualTo(42);
                });
    }

    /** A table created before high_water existed, by the application's own DDL: startup says how to upgrade it. */
    @Test
    void aTableWithoutHighWaterFailsStartupQuotingTheStatementsThatAddIt() {
        segments(TestNames.h2Url())
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_SEGMENT_TABLE.location(),
                        "idworker.segment.table=old_segment", "idworker.segment.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.segment.initialize-schema");
                    assertThat(cause.getMessage()).contains("'old_segment'", "lacks column high_water",
                            "ALTER TABLE old_segment ADD COLUMN high_water BIGINT; "
                                    + "UPDATE old_segment SET high_water = max_id WHERE high_water IS NULL");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("ALTER TABLE old_segment ADD COLUMN high_water");
                    assertThat(analysis.getAction()).contains("Add the column")
                            .contains("idworker.segment.initialize-schema=always");
                });
    }

    /** The same table with initialize-schema=always: the column is added and seeded from max_id at startup. */
    @Test
    void aTableWithoutHighWaterIsUpgradedAtStartupWithSchemaInitializationAlways() {
        segments(TestNames.h2Url())
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=" + OLD_SEGMENT_TABLE.location(),
                        "idworker.segment.table=old_segment", "idworker.segment.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    try (Connection c = context.getBean(DataSource.class).getConnection();
                         PreparedStatement ps = c.prepareStatement(
                                 "SELECT high_water FROM old_segment WHERE biz_tag = 'order'");
                         ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getLong(1)).as("seeded from max_id").isEqualTo(5_000);
                    }
                    assertThat(context.getBean(SegmentIdGenerators.class).nextId("order")).isEqualTo(5_001);
                });
    }

    @Test
    void withoutADataSourceStartupFailsNamingSpringDatasource() {
        new ApplicationContextRunner().withUserConfiguration(SegmentApp.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                    .getProperty()).isEqualTo("spring.datasource.url");
        });
    }

    static long maxId(Connection c, String table, String tag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT max_id FROM " + table + " WHERE biz_tag = ?")) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of tag %s in %s", tag, table).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private static boolean tableExists(Connection c, String table) throws SQLException {
        try (ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
            return rs.next();
        }
    }
}
