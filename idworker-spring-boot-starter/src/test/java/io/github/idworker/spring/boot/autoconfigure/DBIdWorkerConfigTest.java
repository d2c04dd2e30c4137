package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
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
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @EnableIdWorker(mode = CenterMode.DB)} over a real H2 database, one fresh database and namespace per
 * test.
 */
class DBIdWorkerConfigTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    /** A database-mode application with a short lease, so a fresh namespace's first borrow waits little. */
    private ApplicationContextRunner db(String url, String namespace) {
        return withDefaults(url, namespace).withPropertyValues(TestNames.SHORT_DB_LEASE);
    }

    /** The same with idworker's default lease and JDBC timeouts. */
    private ApplicationContextRunner withDefaults(String url, String namespace) {
        return runner.withUserConfiguration(DbApp.class)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + namespace);
    }

    /**
     * Spring 7 pauses contexts the test context cache is not using and restarts them later: the worker must come
     * back issuing, not closed (it answered "worker … is closed" before the lifecycle opted out of pausing).
     */
    @Test
    void aPausedAndRestartedContextKeepsItsWorkerIssuing() {
        db(TestNames.h2Url(), TestNames.namespace()).run(context -> {
            DBIdWorker worker = context.getBean(DBIdWorker.class);
            long before = worker.nextId();
            context.getSourceApplicationContext().pause();
            context.getSourceApplicationContext().start();
            assertThat(worker.status().state()).isEqualTo("issuing");
            assertThat(worker.nextId()).isGreaterThan(before);
        });
    }

    @Test
    void defaultsRegisterAJdbcManagerAndAStartedDbIdWorker() {
        String namespace = TestNames.namespace();
        db(TestNames.h2Url(), namespace).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DBIdWorker.class);
            assertThat(context.getBean("dbIdWorker")).isInstanceOf(DBIdWorker.class);
            assertThat(context.getBean("dbSequenceManager")).isInstanceOf(JdbcSequenceManager.class);
            DBIdWorker worker = context.getBean(DBIdWorker.class);
            assertThat(worker.namespace()).isEqualTo(namespace);

            long[] ids = worker.nextIds(5000);
            assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(5000);
            assertThat(ids).isSorted();
            DecodedId decoded = worker.decode(ids[0]);
            assertThat(decoded.workerId()).isEqualTo(worker.currentLease().workerId());
            assertThat(decoded.timestamp()).isBetween(Instant.now().minusSeconds(60), Instant.now());

            // the lease is the one stored in the default table, which initialize-schema=embedded created
            try (Connection c = context.getBean(DataSource.class).getConnection()) {
                assertThat(owner(c, "idworker_worker_slot", namespace, worker.currentLease().workerId()))
                        .isEqualTo(worker.currentLease().owner());
            }
        });
    }

    @Test
    void namespaceDefaultsToTheApplicationNameThenToDefault() {
        String appName = TestNames.namespace();
        runner.withUserConfiguration(DbApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.application.name=" + appName)
                .run(context -> assertThat(context.getBean(DBIdWorker.class).namespace()).isEqualTo(appName));
        runner.withUserConfiguration(DbApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> assertThat(context.getBean(DBIdWorker.class).namespace()).isEqualTo("default"));
    }

    @Test
    void propertiesReachTheWorker() {
        db(TestNames.h2Url(), TestNames.namespace())
                .withPropertyValues("idworker.snowflake.epoch=2024-06-01T00:00:00Z",
                        "idworker.snowflake.timestamp-bits=42", "idworker.snowflake.worker-bits=8",
                        "idworker.snowflake.sequence-bits=13", "idworker.snowflake.clock=system",
                        "idworker.snowflake.on-large-backward-step=fail", "idworker.snowflake.max-backward=5ms",
                        "idworker.lease.ttl=3s", "idworker.lease.heartbeat-interval=1500ms", "idworker.lease.loss-guard=3010ms",
                        "idworker.jdbc.table=my_slots", "idworker.jdbc.initialize-schema=always",
                        "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    IdWorkerProperties properties = context.getBean(IdWorkerProperties.class);
                    assertThat(properties.getSnowflake().getOnLargeBackwardStep()).isEqualTo(BackwardsPolicy.FAIL);
                    assertThat(properties.getSnowflake().getClock()).isEqualTo(SnowflakeProperties.Clock.SYSTEM);
                    DBIdWorker worker = context.getBean(DBIdWorker.class);
                    assertThat(worker.layout().epoch()).isEqualTo(Instant.parse("2024-06-01T00:00:00Z"));
                    assertThat(worker.layout().timestampBits()).isEqualTo(42);
                    assertThat(worker.layout().workerBits()).isEqualTo(8);
                    assertThat(worker.layout().sequenceBits()).isEqualTo(13);
                    JdbcSequenceManager manager = context.getBean(JdbcSequenceManager.class);
                    assertThat(manager.tableName()).isEqualTo("my_slots");
                    assertThat(manager.namespaceTableName()).isEqualTo("my_slots_ns");
                    assertThat(manager.timeouts())
                            .isEqualTo(new JdbcTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(3)));
                    long id = worker.nextId();
                    assertThat(worker.decode(id).workerId()).isEqualTo(worker.currentLease().workerId());
                    assertThat(worker.currentLease().ttl().toMillis()).isEqualTo(3000);
                });
    }

    /** A real JDBC centre over its own table that records what the worker asks of it. */
    static class RecordingSequenceManager extends JdbcSequenceManager {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingSequenceManager(DataSource dataSource) {
            super(dataSource, "custom_worker_slot");
        }

        @Override
        public WorkerLease borrow(LeaseRequest request) {
            calls.add("borrow");
            return super.borrow(request);
        }

        @Override
        public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
            calls.add("renew");
            return super.renew(lease, highWaterMillis);
        }

        @Override
        public void giveBack(WorkerLease lease, long lastIssuedMillis) {
            calls.add("giveBack");
            super.giveBack(lease, lastIssuedMillis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class CustomManagerApp {

        @Bean
        RecordingSequenceManager dbSequenceManager(DataSource dataSource) {
            RecordingSequenceManager manager = new RecordingSequenceManager(dataSource);
            manager.createSchemaIfMissing();
            return manager;
        }
    }

    @Test
    void aUserBeanNamedDbSequenceManagerReplacesTheDefaultAndIsTheOneTheWorkerUses() throws Exception {
        String url = TestNames.h2Url();
        String namespace = TestNames.namespace();
        RecordingSequenceManager[] used = new RecordingSequenceManager[1];
        runner.withUserConfiguration(CustomManagerApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + namespace)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(ISequenceManager.class);
                    RecordingSequenceManager manager = context.getBean(RecordingSequenceManager.class);
                    assertThat(context.getBean("dbSequenceManager")).isSameAs(manager);
                    used[0] = manager;
                    DBIdWorker worker = context.getBean(DBIdWorker.class);
                    assertThat(worker.nextIds(100)).doesNotHaveDuplicates();
                    // the keeper may renew on its own while the first borrow waits for its floor
                    assertThat(manager.calls).startsWith("borrow").containsOnly("borrow", "renew");
                    int before = manager.calls.size();
                    worker.renew();
                    assertThat(manager.calls).hasSizeGreaterThan(before).endsWith("renew");
                    try (Connection c = context.getBean(DataSource.class).getConnection()) {
                        assertThat(owner(c, "custom_worker_slot", namespace, worker.currentLease().workerId()))
                                .isEqualTo(worker.currentLease().owner());
                        assertThat(tableExists(c, "IDWORKER_WORKER_SLOT"))
                                .as("the default manager never ran, so the default table was never created").isFalse();
                    }
                });
        assertThat(used[0].calls).startsWith("borrow").endsWith("renew", "giveBack")
                .containsOnly("borrow", "renew", "giveBack");
    }

    @Test
    void closingTheContextReturnsTheLease() throws Exception {
        String url = TestNames.h2Url();
        String namespace = TestNames.namespace();
        // two worker ids (the fewest the starter allows): the second worker takes worker id 0 again only because
        // the first returned it with its high-water in the past
        ApplicationContextRunner oneSlot = db(url, namespace).withPropertyValues("idworker.snowflake.worker-bits=1");
        long[] lastId = new long[1];
        long[] lastTimestamp = new long[1];
        oneSlot.run(context -> {
            AbstractIdWorker worker = context.getBean(DBIdWorker.class);
            lastId[0] = worker.nextIds(10)[9];
            lastTimestamp[0] = worker.decode(lastId[0]).timestamp().toEpochMilli();
            context.close();
            assertThat(worker.currentLease()).isNull();
        });
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            assertThat(owner(c, "idworker_worker_slot", namespace, 0)).as("owner after close").isNull();
            assertThat(highWater(c, namespace, 0)).as("high-water = last issued timestamp").isEqualTo(lastTimestamp[0]);
        }
        oneSlot.run(context -> {
            assertThat(context).hasNotFailed();
            DBIdWorker second = context.getBean(DBIdWorker.class);
            assertThat(second.currentLease().workerId()).isZero();
            assertThat(second.nextId()).isGreaterThan(lastId[0]);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.snowflake.worker-bits=30                                            | idworker.snowflake.worker-bits
            idworker.snowflake.worker-bits=0                                             | idworker.snowflake.worker-bits
            idworker.snowflake.worker-bits=-1                                            | idworker.snowflake.worker-bits
            idworker.snowflake.timestamp-bits=42,idworker.snowflake.sequence-bits=12     | idworker.snowflake.timestamp-bits
            idworker.snowflake.epoch=2999-01-01T00:00:00Z                                | idworker.snowflake.epoch
            idworker.lease.ttl=0                                                         | idworker.lease.ttl
            idworker.lease.ttl=3s,idworker.lease.heartbeat-interval=2s                   | idworker.lease.heartbeat-interval
            idworker.lease.loss-guard=2s                                                 | idworker.lease.loss-guard
            idworker.lease.loss-guard=0                                                  | idworker.lease.loss-guard
            idworker.snowflake.max-backward=5s                                           | idworker.snowflake.max-backward
            idworker.namespace=has spaces                                                | idworker.namespace
            idworker.jdbc.table=slots;drop                                               | idworker.jdbc.table
            idworker.jdbc.statement-timeout=500ms                                        | idworker.jdbc.statement-timeout
            idworker.jdbc.statement-timeout=1500ms                                       | idworker.jdbc.statement-timeout
            idworker.jdbc.network-timeout=2s                                             | idworker.jdbc.network-timeout
            idworker.jdbc.statement-timeout=5s,idworker.jdbc.network-timeout=10s         | idworker.jdbc.statement-timeout
            idworker.lease.heartbeat-interval=2s                                         | idworker.jdbc.statement-timeout
            idworker.lease.ttl=3s                                                        | idworker.jdbc.statement-timeout
            """)
    void badPropertiesFailStartupNamingTheProperty(String properties, String property) {
        withDefaults(TestNames.h2Url(), TestNames.namespace()).withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(StartupFailures.cause(failure, IdWorkerConfigurationException.class).getProperty())
                    .isEqualTo(property);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains(property);
            assertThat(analysis.getAction()).contains(property);
        });
    }

    /** ttl 2002 ms + max-skew 10 ms exceed a loss guard of 2 s: floors after a loss could lie below high-waters. */
    @Test
    void aLossGuardBelowTtlPlusMaxSkewFailsStartupNamingBothAndTheirValues() {
        db(TestNames.h2Url(), TestNames.namespace()).withPropertyValues("idworker.lease.loss-guard=2s").run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("idworker.lease.loss-guard");
            assertThat(cause.getMessage()).contains("idworker.lease.ttl (PT2.002S)", "idworker.lease.max-skew (PT0.01S)",
                    "must be at most idworker.lease.loss-guard (PT2S)");
        });
    }

    @Test
    void zeroWorkerBitsAreRefusedSayingWhatIsAllowedAndWhy() {
        db(TestNames.h2Url(), TestNames.namespace()).withPropertyValues("idworker.snowflake.worker-bits=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                    .getMessage()).startsWith("idworker.snowflake.worker-bits: must be 1 to 20")
                    .contains("was 0").contains("a second instance");
        });
    }

    @Test
    void anApplicationNameThatIsNoNamespaceIsBlamedOnSpringApplicationNameNotOnIdworkerNamespace() {
        runner.withUserConfiguration(DbApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.application.name=Order Service")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("spring.application.name");
                    assertThat(cause.getMessage()).contains("'Order Service'")
                            .contains("with idworker.namespace unset the namespace defaults to spring.application.name")
                            .contains("1 to 64 characters of ASCII letters, digits, '.', '_', ':' or '-'")
                            .contains("'Order-Service'");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getAction()).contains("Set idworker.namespace")
                            .contains("change spring.application.name");
                });
    }

    @Test
    void anInvalidApplicationNameDoesNotMatterWhenIdworkerNamespaceIsSet() {
        String namespace = TestNames.namespace();
        runner.withUserConfiguration(DbApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.application.name=Order Service",
                        "idworker.namespace=" + namespace)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DBIdWorker.class).namespace()).isEqualTo(namespace);
                });
    }

    @Test
    void theJdbcTimeoutsDefaultToTwoAndFiveSecondsBelowTheDefaultHeartbeat() {
        // the JDBC timeouts as they default; a lease just long enough for them, so the first borrow waits 4 s
        withDefaults(TestNames.h2Url(), TestNames.namespace()).withPropertyValues("idworker.lease.ttl=4100ms",
                "idworker.lease.heartbeat-interval=2050ms", "idworker.lease.max-skew=10ms", "idworker.lease.loss-guard=4110ms").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(JdbcSequenceManager.class).timeouts()).isEqualTo(JdbcTimeouts.defaults());
            assertThat(JdbcTimeouts.defaults().statementTimeout()).as("below the default heartbeat, a third of the ttl")
                    .isLessThan(new IdWorkerProperties().getLease().getTtl().dividedBy(3));
        });
    }

    @Test
    void aPasswordInTheDataSourceUrlNeverReachesAStartupFailure() {
        String secret = "Sup3rS3cret";
        String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;PASSWORD=" + secret;
        db(url, TestNames.namespace())
                .withPropertyValues("spring.datasource.password=" + secret, "idworker.jdbc.initialize-schema=never")
                .run(context -> assertNoSecretIn(context.getStartupFailure(), secret));
        int port = EmbeddedRedis.freePort();
        db("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:unreachable;PASSWORD=" + secret, TestNames.namespace())
                .withPropertyValues("spring.datasource.password=" + secret,
                        "spring.datasource.hikari.connection-timeout=1000")
                .run(context -> assertNoSecretIn(context.getStartupFailure(), secret));
    }

    private static void assertNoSecretIn(Throwable failure, String secret) {
        assertThat(failure).isNotNull();
        IdWorkerException cause = StartupFailures.cause(failure, IdWorkerException.class);
        assertThat(cause.getMessage()).contains("PASSWORD=***").doesNotContain(secret);
        FailureAnalysis analysis = StartupFailures.analysis(failure);
        assertThat(analysis.getDescription()).contains("PASSWORD=***").doesNotContain(secret);
        assertThat(analysis.getAction()).doesNotContain(secret);
    }

    @Test
    void aMissingTableWithoutSchemaInitializationFailsNamingTheProperty() {
        db(TestNames.h2Url(), TestNames.namespace())
                .withPropertyValues("idworker.jdbc.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.jdbc.initialize-schema");
                    assertThat(cause.getMessage()).contains("idworker_worker_slot");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("dbSequenceManager")
                            .contains("idworker.jdbc.initialize-schema");
                    assertThat(analysis.getAction()).contains("idworker.jdbc.initialize-schema=always");
                });
    }

    @Test
    void anUnreachableDatabaseFailsNamingHostAndPort() {
        int port = EmbeddedRedis.freePort();
        db("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:unreachable", TestNames.namespace())
                .withPropertyValues("spring.datasource.hikari.connection-timeout=2000")
                .run(context -> {
                    assertThat(context).hasFailed();
                    CenterUnavailableException cause = StartupFailures.cause(context.getStartupFailure(),
                            CenterUnavailableException.class);
                    assertThat(cause.getMessage()).contains("127.0.0.1:" + port);
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("127.0.0.1:" + port);
                    assertThat(analysis.getAction()).contains("spring.datasource");
                });
    }

    @Test
    void withoutADataSourceStartupFailsNamingSpringDatasource() {
        new ApplicationContextRunner().withUserConfiguration(DbApp.class)
                .withPropertyValues("idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                            .getProperty()).isEqualTo("spring.datasource.url");
                });
    }

    private static String owner(Connection c, String table, String namespace, int slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT owner_token FROM " + table + " WHERE ns = ? AND slot_id = ?")) {
            ps.setString(1, namespace);
            ps.setInt(2, slot);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of slot %s in %s", slot, table).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static long highWater(Connection c, String namespace, int slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT high_water FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")) {
            ps.setString(1, namespace);
            ps.setInt(2, slot);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
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
