package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.snowflake.clock} keeps one value, {@code system}, so configurations that set it still start; the
 * {@code ticking} clock it used to offer is gone, and setting it fails the startup with Spring Boot's own binding
 * report, which names the property and lists the value that is allowed.
 */
class SnowflakeClockPropertyTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
            .withUserConfiguration(DbApp.class);

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    private ApplicationContextRunner db(String clock) {
        return runner.withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                "idworker.namespace=" + TestNames.namespace(), "idworker.snowflake.clock=" + clock);
    }

    @Test
    void theSystemClockStillBindsAndTheWorkerIssues() {
        db("system").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(IdWorkerProperties.class).getSnowflake().getClock())
                    .isEqualTo(SnowflakeProperties.Clock.SYSTEM);
            assertThat(context.getBean(DBIdWorker.class).nextId()).isPositive();
        });
    }

    @Test
    void theRemovedTickingClockFailsStartupNamingThePropertyAndTheValidValue() {
        db("ticking").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            BindException bind = null;
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof BindException b) {
                    bind = b;
                }
            }
            assertThat(bind).as("bind failure in %s", failure).isNotNull();
            assertThat(bind.getProperty().getName().toString()).isEqualTo("idworker.snowflake.clock");
            assertThat(bind.getProperty().getValue()).isEqualTo("ticking");

            FailureAnalysis analysis = bootAnalysis(failure);
            assertThat(analysis.getDescription()).contains("idworker.snowflake.clock").contains("\"ticking\"");
            assertThat(analysis.getAction()).contains("The following values are valid").contains("SYSTEM")
                    .doesNotContain("TICKING");
        });
    }

    /**
     * What Spring Boot prints under "APPLICATION FAILED TO START": the analysis of the first of its registered
     * failure analyzers, in their order, that recognises the failure.
     */
    private static FailureAnalysis bootAnalysis(Throwable failure) {
        ClassLoader classLoader = SnowflakeClockPropertyTest.class.getClassLoader();
        List<FailureAnalyzer> analyzers = new ArrayList<>(SpringFactoriesLoader.forDefaultResourceLocation(classLoader)
                .load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, new StandardEnvironment()),
                        (type, name, cause) -> { }));
        AnnotationAwareOrderComparator.sort(analyzers);
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("no failure analyzer of Spring Boot recognises " + failure, failure);
    }
}
