package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's {@code dbSequenceManager} declared on the class that also injects the worker: with Spring Boot's default
 * (no circular references) the instance {@code @Bean} method forms a cycle, which
 * {@link SequenceManagerCycleFailureAnalyzer} explains; a {@code static} {@code @Bean} method does not.
 */
class SequenceManagerCycleTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
            .withAllowCircularReferences(false);

    /** The application class as a new user writes it: the worker injected, the manager declared beside it. */
    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class ManagerOnTheApplicationClass {

        @Autowired
        DBIdWorker worker;

        @Bean
        ISequenceManager dbSequenceManager(DataSource dataSource) {
            JdbcSequenceManager manager = new JdbcSequenceManager(dataSource);
            manager.createSchemaIfMissing();
            return manager;
        }
    }

    /** The same with a static {@code @Bean} method, which needs no instance of its class. */
    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class StaticManagerOnTheApplicationClass {

        @Autowired
        DBIdWorker worker;

        @Bean
        static ISequenceManager dbSequenceManager(DataSource dataSource) {
            JdbcSequenceManager manager = new JdbcSequenceManager(dataSource);
            manager.createSchemaIfMissing();
            return manager;
        }
    }

    @Test
    void theInstanceBeanMethodFormsACycleThatTheAnalyzerExplains() {
        runner.withUserConfiguration(ManagerOnTheApplicationClass.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new SequenceManagerCycleFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).as("%s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("declares the @Bean 'dbSequenceManager' and also needs 'dbIdWorker'")
                            .contains("sequenceManagerCycleTest.ManagerOnTheApplicationClass -> dbIdWorker");
                    assertThat(analysis.getAction()).contains("static").contains("@Configuration class of its own");
                });
    }

    @Test
    void aStaticBeanMethodHasNoCycleAndTheWorkerUsesTheUsersManager() {
        runner.withUserConfiguration(StaticManagerOnTheApplicationClass.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    StaticManagerOnTheApplicationClass app = context.getBean(StaticManagerOnTheApplicationClass.class);
                    assertThat(app.worker).isSameAs(context.getBean(DBIdWorker.class));
                    assertThat(context.getBean("dbSequenceManager")).isInstanceOf(JdbcSequenceManager.class);
                    assertThat(app.worker.nextIds(100)).doesNotHaveDuplicates().isSorted();
                });
    }

    @Test
    void otherCyclesAreLeftToSpringBoot() {
        assertThat(new SequenceManagerCycleFailureAnalyzer().analyze(
                new org.springframework.beans.factory.BeanCurrentlyInCreationException("a"))).isNull();
    }
}
