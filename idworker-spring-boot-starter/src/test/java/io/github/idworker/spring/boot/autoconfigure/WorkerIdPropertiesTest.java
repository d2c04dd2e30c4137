package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.worker-id.*}: a fixed or StatefulSet-ordinal worker id over a real H2 centre, what happens when
 * another live worker holds it, and the startup checks of the values; none of the keys is warned about as unknown.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkerIdPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    private final String url = TestNames.h2Url();
    private final String namespace = TestNames.namespace();

    private ApplicationContextRunner app(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        IdWorkerPropertiesCheckAutoConfiguration.class))
                .withUserConfiguration(DbApp.class)
                .withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + namespace)
                .withPropertyValues(properties);
    }

    private static int workerIdOf(org.springframework.context.ApplicationContext context) {
        return Objects.requireNonNull(context.getBean(DBIdWorker.class).currentLease()).workerId();
    }

    @Test
    void aFixedWorkerIdIsTakenAndLogged(CapturedOutput output) {
        app("idworker.worker-id.preferred=5", "idworker.worker-id.when-taken=fail").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(workerIdOf(context)).isEqualTo(5);
            DBIdWorker worker = context.getBean(DBIdWorker.class);
            assertThat(worker.decode(worker.nextId()).workerId()).isEqualTo(5);
        });
        assertThat(output.getAll()).contains("idworker namespace '" + namespace + "' took its preferred worker id 5 "
                + "(idworker.worker-id.preferred=5)");
        assertThat(output.getErr()).doesNotContain("is not a property of idworker");
    }

    @Test
    void theOrdinalOfAStatefulSetPodIsTaken(CapturedOutput output) {
        app("idworker.worker-id.source=statefulset-ordinal", "HOSTNAME=orders-3").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(workerIdOf(context)).isEqualTo(3);
        });
        assertThat(output.getAll()).contains("took its preferred worker id 3 (the ordinal of host name 'orders-3')");
        assertThat(output.getErr()).doesNotContain("is not a property of idworker");
    }

    @Test
    void aPreferredIdHeldByAnotherLiveWorkerFailsTheStartupOrFallsBackAsConfigured(CapturedOutput output) {
        app("idworker.worker-id.preferred=2").run(holder -> {
            assertThat(workerIdOf(holder)).isEqualTo(2);
            app("idworker.worker-id.preferred=2").run(refused -> {
                assertThat(refused).hasFailed();
                WorkerIdTakenException taken = StartupFailures.cause(refused.getStartupFailure(),
                        WorkerIdTakenException.class);
                assertThat(taken.getWorkerId()).isEqualTo(2);
                assertThat(taken).hasMessageContaining("is held by a live lease of another worker");
            });
            assertThat(output.getErr()).contains("does not start: its preferred worker id 2 "
                    + "(idworker.worker-id.preferred=2) is held by another live worker");
            app("idworker.worker-id.preferred=2", "idworker.worker-id.when-taken=any").run(fallback -> {
                assertThat(fallback).hasNotFailed();
                int taken = workerIdOf(fallback);
                assertThat(taken).isNotEqualTo(2);
                assertThat(output.getErr()).contains("took worker id " + taken + " instead of its preferred worker "
                        + "id 2 (idworker.worker-id.preferred=2), which is held by another live worker");
            });
            assertThat(workerIdOf(holder)).isEqualTo(2);
        });
    }

    @Test
    void aPreferredIdOutsideTheLayoutNamesThePropertyAndTheRange() {
        for (String value : new String[] {"1024", "-1"}) {
            app("idworker.worker-id.preferred=" + value).run(context -> {
                assertThat(context).hasFailed();
                IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class);
                assertThat(e.getProperty()).isEqualTo("idworker.worker-id.preferred");
                assertThat(e).hasMessageContaining("gives worker id " + value)
                        .hasMessageContaining("allowed are 0 to 1023 (idworker.snowflake.worker-bits = 10");
            });
        }
        app("idworker.worker-id.preferred=300", "idworker.snowflake.worker-bits=8").run(context ->
                assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class))
                        .hasMessageContaining("allowed are 0 to 255"));
    }

    @Test
    void aHostNameWithoutAnOrdinalOrWithOneOutsideTheLayoutIsRefusedNamingIt() {
        app("idworker.worker-id.source=statefulset-ordinal", "HOSTNAME=orders").run(context -> {
            IdWorkerConfigurationException e = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(e.getProperty()).isEqualTo("idworker.worker-id.source");
            assertThat(e).hasMessageContaining("the host name is 'orders'")
                    .hasMessageContaining("<statefulset name>-<ordinal>, such as 'orders-3'");
        });
        app("idworker.worker-id.source=statefulset-ordinal", "HOSTNAME=orders-2000").run(context ->
                assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class))
                        .hasMessageContaining("idworker.worker-id.source")
                        .hasMessageContaining("the ordinal of host name 'orders-2000'")
                        .hasMessageContaining("allowed are 0 to 1023"));
    }

    @Test
    void contradictoryOrMissingValuesAreRefusedNamingTheProperty() {
        app("idworker.worker-id.source=statefulset-ordinal", "idworker.worker-id.preferred=1", "HOSTNAME=orders-3")
                .run(context -> assertThat(StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class))
                        .hasMessageContaining("idworker.worker-id.preferred: is set (1), but idworker.worker-id.source "
                                + "is statefulset-ordinal, which does not read it"));
        app("idworker.worker-id.source=fixed").run(context -> assertThat(StartupFailures.cause(
                context.getStartupFailure(), IdWorkerConfigurationException.class))
                .hasMessageContaining("idworker.worker-id.preferred: must be set when idworker.worker-id.source=fixed"));
    }
}
