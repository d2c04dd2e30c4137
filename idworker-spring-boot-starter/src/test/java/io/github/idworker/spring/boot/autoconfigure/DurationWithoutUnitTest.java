package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code idworker.lease.ttl=15} is 15 ms to Spring Boot, and the lease refuses it: the startup failure says how the
 * number was read, not only that 15 ms is too short.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurationWithoutUnitTest {

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    /** The analysis Spring Boot would print when a DB-mode application starts with {@code idworker.lease.ttl=ttl}. */
    private static FailureAnalysis analysisWithTtl(String ttl) {
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        AtomicReference<FailureAnalysis> analysis = new AtomicReference<>();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withInitializer(started::set).withUserConfiguration(DbApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.namespace=" + TestNames.namespace(), "idworker.lease.ttl=" + ttl)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                            .getProperty()).isEqualTo("idworker.lease.ttl");
                    analysis.set(new IdWorkerFailureAnalyzer(started.get().getEnvironment())
                            .analyze(context.getStartupFailure()));
                });
        return analysis.get();
    }

    @Test
    void aTtlWithoutAUnitFailsSayingItWasReadAsMilliseconds() {
        assertThat(analysisWithTtl("15").getDescription()).contains("idworker.lease.ttl: must be at least 100ms, was 15ms")
                .endsWith("\n\n    idworker.lease.ttl=15 was read as 15 ms (a number without a unit is "
                        + "milliseconds); write 15ms to keep it, or 15s for seconds");
    }

    @Test
    void withAUnitThereIsNoHint() {
        assertThat(analysisWithTtl("15ms").getDescription()).contains("idworker.lease.ttl: must be at least 100ms")
                .doesNotContain("without a unit");
    }

    @Configuration(proxyBeanMethods = false)
    @Import({DbApp.class, DataSourceAutoConfiguration.class})
    static class BootApp {
    }

    /** Spring Boot hands the analyzer the environment of the failed startup (its public constructor). */
    @Test
    void aRealStartupPrintsTheHint(CapturedOutput output) {
        SpringApplication application = new SpringApplication(BootApp.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        application.setDefaultProperties(Map.of("spring.main.banner-mode", "off",
                "spring.datasource.url", TestNames.h2Url(), "idworker.namespace", TestNames.namespace(),
                "idworker.lease.ttl", "15"));
        assertThatThrownBy(application::run).isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START", "idworker.lease.ttl: must be at least 100ms",
                "idworker.lease.ttl=15 was read as 15 ms (a number without a unit is milliseconds)");
    }
}
