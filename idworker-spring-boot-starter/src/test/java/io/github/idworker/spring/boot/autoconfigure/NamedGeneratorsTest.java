package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdGenerator;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.boot.actuate.IdWorkerEndpoint;
import io.github.idworker.spring.boot.actuate.IdWorkerMeters;
import io.github.idworker.spring.boot.actuate.IdWorkerReport;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Named generators of {@code idworker.generators.<name>.*} beside the worker of {@code @EnableIdWorker} over a
 * real H2 centre: each with its own lease and layout, injected by {@code @Qualifier}, shown by name in health,
 * the endpoint and the meters, returning its lease on close; bad names and values fail the startup naming the key.
 */
@ExtendWith(OutputCaptureExtension.class)
class NamedGeneratorsTest {

    // --8<-- [start:service]
    /** A service with two ID spaces of its own, each injected by the generator's name. */
    static class OrderService {

        private final IdGenerator orderIds;
        private final IdGenerator paymentIds;

        OrderService(@Qualifier("orders") IdGenerator orderIds, @Qualifier("payments") IdGenerator paymentIds) {
            this.orderIds = orderIds;
            this.paymentIds = paymentIds;
        }

        long newOrder() {
            return orderIds.nextId();
        }

        long newPayment() {
            return paymentIds.nextId();
        }
    }
    // --8<-- [end:service]

    /** The application's one worker is still injected by type alone, as before the generators existed. */
    record ByType(DBIdWorker worker) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @Import(OrderService.class)
    static class App {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        ByType byType(DBIdWorker worker) {
            return new ByType(worker);
        }
    }

    private final String defaultNamespace = TestNames.namespace();
    private final String ordersNamespace = TestNames.namespace();
    private final String paymentsNamespace = TestNames.namespace();
    /** A payments epoch of its own, 30 days before today's start: the test passes on any day. */
    private final Instant paymentsEpoch = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(30));

    private ApplicationContextRunner app(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        IdWorkerOperationsAutoConfiguration.class, IdWorkerPropertiesCheckAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + defaultNamespace,
                        "management.endpoints.web.exposure.include=idworker",
                        "idworker.generators.orders.namespace=" + ordersNamespace,
                        "idworker.generators.orders.snowflake.worker-bits=6",
                        "idworker.generators.orders.snowflake.sequence-bits=14",
                        "idworker.generators.payments.namespace=" + paymentsNamespace,
                        "idworker.generators.payments.snowflake.epoch=" + paymentsEpoch,
                        "idworker.generators.payments.snowflake.timestamp-bits=40",
                        "idworker.generators.payments.snowflake.worker-bits=12",
                        "idworker.generators.payments.snowflake.sequence-bits=11");
    }

    @Test
    void twoGeneratorsLeaseApartIssueInTheirLayoutsShowByNameAndReturnTheirLeases(CapturedOutput output)
            throws Exception {
        String url = TestNames.h2Url();
        AbstractIdWorker[] kept = new AbstractIdWorker[3];
        app(url).run(context -> {
            assertThat(context).hasNotFailed();
            AbstractIdWorker orders = context.getBean("orders", AbstractIdWorker.class);
            AbstractIdWorker payments = context.getBean("payments", AbstractIdWorker.class);
            DBIdWorker worker = context.getBean(ByType.class).worker();
            kept[0] = orders;
            kept[1] = payments;
            kept[2] = worker;
            assertThat(orders).isInstanceOf(DBIdWorker.class);
            assertThat(worker).isSameAs(context.getBean(DBIdWorkerConfig.WORKER_BEAN));
            assertThat(List.of(worker.namespace(), orders.namespace(), payments.namespace()))
                    .containsExactly(defaultNamespace, ordersNamespace, paymentsNamespace);

            // injected by @Qualifier: the service's IDs come from the generators of those names
            OrderService service = context.getBean(OrderService.class);
            long order = service.newOrder();
            long payment = service.newPayment();
            assertThat(orders.decode(order).workerId()).isEqualTo(orders.currentLease().workerId());
            assertThat(orders.issuedCount()).isEqualTo(1);
            assertThat(payments.issuedCount()).isEqualTo(1);
            assertThat(worker.issuedCount()).isZero();

            // each in its own layout, decoded with a layout built here from the configured values
            SnowflakeLayout ordersLayout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 6, 14);
            SnowflakeLayout paymentsLayout = SnowflakeLayout.of(paymentsEpoch, 40, 12, 11);
            assertIssuesIn(orders, ordersLayout, order);
            assertIssuesIn(payments, paymentsLayout, payment);

            // one lease each, stored under its own namespace in the one centre
            try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                for (AbstractIdWorker w : kept) {
                    assertThat(owner(c, w.namespace(), w.currentLease().workerId()))
                            .isEqualTo(w.currentLease().owner());
                }
            }

            // health: one idWorker component, a detail per worker under its bean name, which is the generator's name
            Health health = context.getBean("idWorkerHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsOnlyKeys(DBIdWorkerConfig.WORKER_BEAN, "orders", "payments");
            assertThat(detail(health, "orders")).containsEntry("namespace", ordersNamespace)
                    .containsEntry("workerId", orders.currentLease().workerId());
            assertThat(detail(health, "payments")).containsEntry("namespace", paymentsNamespace);

            // endpoint: a worker entry per generator (one ID through the service, 3000 in the layout check), its bean the generator's name
            List<IdWorkerReport.Worker> entries = context.getBean(IdWorkerEndpoint.class).report().workers();
            assertThat(entries).extracting(IdWorkerReport.Worker::bean, IdWorkerReport.Worker::namespace,
                    IdWorkerReport.Worker::issued).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple(DBIdWorkerConfig.WORKER_BEAN, defaultNamespace, 0L),
                    org.assertj.core.groups.Tuple.tuple("orders", ordersNamespace, 3001L),
                    org.assertj.core.groups.Tuple.tuple("payments", paymentsNamespace, 3001L));

            // meters: the default worker's unchanged (namespace only); each generator's by name
            SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
            Meter defaultState = registry.get("idworker.lease.state").tags("namespace", defaultNamespace).meter();
            assertThat(defaultState.getId().getTags()).extracting(t -> t.getKey()).containsExactly("namespace");
            assertThat(registry.get(IdWorkerMeters.GENERATOR_STATE)
                    .tags("generator", "orders", "namespace", ordersNamespace).gauge().value()).isEqualTo(1.0);
            assertThat(registry.get(IdWorkerMeters.GENERATOR_STATE)
                    .tags("generator", "payments", "namespace", paymentsNamespace).gauge().value()).isEqualTo(1.0);
            assertThat(registry.find(IdWorkerMeters.GENERATOR_STATE).meters()).hasSize(2);
            assertThat(registry.get("idworker.lease.worker.id").tags("namespace", paymentsNamespace).gauge().value())
                    .isEqualTo(payments.currentLease().workerId());
            assertThat(registry.get(IdWorkerMeters.ISSUED).tags("mode", "snowflake", "name", ordersNamespace)
                    .functionCounter().count()).isEqualTo(3001.0);
        });
        // every key set above is known: none is warned about as unknown
        assertThat(output).doesNotContain("is not a property of idworker");
        for (AbstractIdWorker w : kept) {
            assertThat(w.currentLease()).as("lease of %s after close", w.namespace()).isNull();
        }
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            for (AbstractIdWorker w : kept) {
                assertThat(owners(c, w.namespace())).as("owners in %s after close", w.namespace()).containsOnlyNulls();
            }
        }
    }

    /** Unique, ordered IDs whose fields, read with {@code layout}, are the worker's lease and the time of issue. */
    private static void assertIssuesIn(AbstractIdWorker worker, SnowflakeLayout layout, long first) {
        assertThat(worker.layout().pinned()).isEqualTo(layout.pinned());
        Instant before = Instant.now().minusSeconds(1);
        long[] ids = worker.nextIds(3000);
        Instant after = Instant.now().plusSeconds(1);
        assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(ids.length);
        assertThat(ids).isSorted();
        assertThat(ids[0]).isGreaterThan(first);
        for (long id : new long[] {first, ids[0], ids[ids.length - 1]}) {
            DecodedId decoded = layout.decode(id);
            assertThat(decoded.workerId()).isEqualTo(worker.currentLease().workerId());
            assertThat(decoded.timestamp()).isBetween(before.minusSeconds(5), after);
            assertThat(decoded.sequence()).isLessThanOrEqualTo(layout.maxSequence());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> detail(Health health, String name) {
        return (Map<String, Object>) health.getDetails().get(name);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "idworker.generators[bad name].namespace=x|idworker.generators[bad name]|letters, digits",
        "idworker.generators.byType.namespace=x|idworker.generators.byType|another bean of the application",
        "idworker.generators.snowflake.namespace=x|idworker.generators.snowflake|names the default worker",
        "idworker.generators.orders.snowflake.worker-bits=30|idworker.generators.orders.snowflake.worker-bits|at most 20",
        "idworker.generators.orders.namespace=|idworker.generators.orders.namespace|must be set",
        "idworker.generators.orders.namespace=a b|idworker.generators.orders.namespace|was 'a b'",
        "idworker.generators.orders.lease.ttl=50ms|idworker.generators.orders.lease.ttl|at least 100ms",
    })
    void aBadNameOrValueFailsTheStartupNamingTheKey(String setting, String property, String says) {
        app(TestNames.h2Url()).withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(e.getProperty()).isEqualTo(property);
            assertThat(e.getMessage()).contains(says);
        });
    }

    @Test
    void aNamespaceTakenByTheDefaultWorkerOrAnotherGeneratorFailsTheStartup() {
        app(TestNames.h2Url()).withPropertyValues("idworker.generators.payments.namespace=" + defaultNamespace)
                .run(context -> {
                    IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(e.getProperty()).isEqualTo("idworker.generators.payments.namespace");
                    assertThat(e.getMessage()).contains("default worker's namespace");
                });
        app(TestNames.h2Url()).withPropertyValues("idworker.generators.payments.namespace=" + ordersNamespace)
                .run(context -> {
                    IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(e.getMessage()).contains("generator 'orders'");
                });
    }

    @Test
    void aMistypedKeyUnderAGeneratorIsWarnedAbout(CapturedOutput output) {
        app(TestNames.h2Url()).withPropertyValues("idworker.generators.orders.lease.tll=5s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("idworker.generators.orders.lease.tll (").contains("is not a property of "
                    + "idworker").doesNotContain("idworker.generators.orders.namespace (");
        });
    }

    private static String owner(Connection c, String namespace, int slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT owner_token FROM idworker_worker_slot WHERE ns = ? AND slot_id = ?")) {
            ps.setString(1, namespace);
            ps.setInt(2, slot);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of slot %s in %s", slot, namespace).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static List<String> owners(Connection c, String namespace) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT owner_token FROM idworker_worker_slot WHERE ns = ?")) {
            ps.setString(1, namespace);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new java.util.ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
                assertThat(out).as("slot rows of %s", namespace).isNotEmpty();
                return out;
            }
        }
    }
}
