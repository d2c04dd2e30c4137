package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DB mode and segment mode in an application without spring-boot-starter-jdbc (simulated by hiding Spring Boot's
 * JDBC support and spring-jdbc): the startup fails saying that the JDBC starter or a DataSource bean is missing,
 * not that spring.datasource.url is wrong.
 */
class MissingDataSourceTest {

    private final ApplicationContextRunner withoutJdbcStarter = new ApplicationContextRunner()
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.jdbc", "org.springframework.jdbc"))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:unused");

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class SegmentApp {
    }

    @Test
    void dbModeWithoutTheJdbcStarterSaysSo() {
        withoutJdbcStarter.withUserConfiguration(DbApp.class).run(context ->
                assertNamesTheJdbcStarter(context.getStartupFailure(), "@EnableIdWorker(mode = CenterMode.DB)",
                        "ISequenceManager bean named dbSequenceManager"));
    }

    @Test
    void segmentModeWithoutTheJdbcStarterSaysSo() {
        withoutJdbcStarter.withUserConfiguration(SegmentApp.class).run(context ->
                assertNamesTheJdbcStarter(context.getStartupFailure(), "@EnableSegmentIdGenerators",
                        "SegmentAllocator bean named segmentAllocator"));
    }

    @Test
    void withTheJdbcStarterButNoDataSourceTheUrlIsNamed() {
        new ApplicationContextRunner().withUserConfiguration(DbApp.class).run(context -> {
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo("spring.datasource.url");
            assertThat(cause.getMessage()).contains("Spring Boot created none").doesNotContain("found 0");
            assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                    .contains("Set spring.datasource.url").contains("declare a DataSource bean");
        });
    }

    private static void assertNamesTheJdbcStarter(Throwable failure, String annotation, String replacement) {
        assertThat(failure).isNotNull();
        IdWorkerConfigurationException cause = StartupFailures.cause(failure, IdWorkerConfigurationException.class);
        assertThat(cause.getProperty()).isEqualTo(annotation);
        assertThat(cause.getMessage()).contains("spring-boot-starter-jdbc is not among its dependencies")
                .doesNotContain("found 0");
        FailureAnalysis analysis = StartupFailures.analysis(failure);
        assertThat(analysis.getAction()).contains("Add spring-boot-starter-jdbc").contains("declare a DataSource bean")
                .contains(replacement).doesNotContain("correct");
    }
}
