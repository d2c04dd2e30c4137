package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@link ISequenceManager} bean of the application that the worker would not use fails the startup, before any
 * bean is created: under a name of its own, or under another mode's name. The default centre never runs beside it
 * (no lease table appears). A bean declared {@code autowireCandidate = false} is the application's business.
 */
class SequenceManagerNameCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
            .withPropertyValues(TestNames.SHORT_DB_LEASE);

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class OwnNameApp {

        @Bean
        static ISequenceManager myLeases(DataSource dataSource) {
            return new JdbcSequenceManager(dataSource, "my_leases");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.DB)
    static class RedisNameUnderDbApp {

        @Bean
        static ISequenceManager redisSequenceManager(DataSource dataSource) {
            return new JdbcSequenceManager(dataSource, "my_leases");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class DbNameUnderRedisApp {

        @Bean
        static JdbcSequenceManager dbSequenceManager(DataSource dataSource) {
            return new JdbcSequenceManager(dataSource, "my_leases");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class NotForInjectionApp {

        @Bean(autowireCandidate = false)
        static ISequenceManager archiveLeases(DataSource dataSource) {
            return new JdbcSequenceManager(dataSource, "archive_leases");
        }
    }

    @Test
    void aManagerUnderANameOfItsOwnFailsNamingItTheModeAndTheNameThatReplacesTheDefault() throws Exception {
        String url = TestNames.h2Url();
        runner.withUserConfiguration(OwnNameApp.class).withPropertyValues("spring.datasource.url=" + url,
                "idworker.namespace=" + TestNames.namespace()).run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("@EnableIdWorker(mode = CenterMode.DB)");
                    assertThat(cause.getMessage()).isEqualTo("@EnableIdWorker(mode = CenterMode.DB): bean 'myLeases' "
                            + "(io.github.idworker.lease.ISequenceManager) is an ISequenceManager, but the worker "
                            + "'dbIdWorker' leases its worker id from the bean named 'dbSequenceManager' only, so it "
                            + "would be ignored and the default JDBC centre used beside it");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getAction()).isEqualTo("Rename bean 'myLeases' to 'dbSequenceManager' (the "
                            + "@Bean method's name or @Bean(\"dbSequenceManager\")) so that it replaces the default "
                            + "JDBC centre and the worker uses it. A manager that serves something other than "
                            + "idworker's worker is declared with @Bean(autowireCandidate = false).");
                });
        assertThat(leaseTableExists(url)).as("the default centre never ran").isFalse();
    }

    @Test
    void aManagerUnderTheOtherModesNameFailsNamingBothModes() throws Exception {
        String url = TestNames.h2Url();
        runner.withUserConfiguration(RedisNameUnderDbApp.class).withPropertyValues("spring.datasource.url=" + url,
                "idworker.namespace=" + TestNames.namespace()).run(context -> {
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getMessage()).contains("bean 'redisSequenceManager'",
                            "is an ISequenceManager named for @EnableIdWorker(mode = CenterMode.REDIS), which is not "
                                    + "enabled, but the worker 'dbIdWorker' leases its worker id from the bean named "
                                    + "'dbSequenceManager' only");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getAction()).contains("Rename bean 'redisSequenceManager' to "
                            + "'dbSequenceManager'", "or switch to @EnableIdWorker(mode = CenterMode.REDIS) if the "
                            + "Redis centre is the one you meant");
                });
        assertThat(leaseTableExists(url)).isFalse();
    }

    /** Fails on the bean definitions: no Redis is needed, none is contacted. */
    @Test
    void underRedisModeADbSequenceManagerFailsBeforeRedisIsContacted() {
        runner.withUserConfiguration(DbNameUnderRedisApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getMessage()).startsWith("@EnableIdWorker(mode = CenterMode.REDIS): bean "
                            + "'dbSequenceManager' (io.github.idworker.lease.jdbc.JdbcSequenceManager) is an "
                            + "ISequenceManager named for @EnableIdWorker(mode = CenterMode.DB)")
                            .contains("the worker 'redisIdWorker' leases its worker id from the bean named "
                                    + "'redisSequenceManager' only", "the default Redis centre used beside it");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getAction()).contains("to 'redisSequenceManager'",
                            "or switch to @EnableIdWorker(mode = CenterMode.DB)");
                });
    }

    @Test
    void aManagerDeclaredNotForInjectionIsLeftAlone() {
        runner.withUserConfiguration(NotForInjectionApp.class).withPropertyValues(
                "spring.datasource.url=" + TestNames.h2Url(), "idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("dbSequenceManager")).isInstanceOf(JdbcSequenceManager.class)
                            .isNotSameAs(context.getBean("archiveLeases"));
                    assertThat(context.getBean(DBIdWorker.class).nextId()).isPositive();
                });
    }

    private static boolean leaseTableExists(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             ResultSet rs = c.getMetaData().getTables(null, null, "IDWORKER_WORKER_SLOT", null)) {
            return rs.next();
        }
    }
}
