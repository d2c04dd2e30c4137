package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
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
 * The worker of one mode injected while another is enabled (or none): the startup failure names the injection
 * point, the enabled mode, the type to inject instead and {@code IdGenerator}. The injection fails before any worker
 * is created, so no centre is needed.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkerTypeFailureAnalyzerTest {

    static class NeedsDb {
        @Autowired
        DBIdWorker ids;
    }

    static class NeedsRedis {
        @Autowired
        RedisIdWorker ids;
    }

    static class NeedsZookeeper {
        @Autowired
        ZookeeperIdWorker ids;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.REDIS)
    @Import(NeedsDb.class)
    static class DbWorkerUnderRedis {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @Import(NeedsRedis.class)
    static class RedisWorkerUnderDb {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    @Import(NeedsDb.class)
    static class DbWorkerUnderZookeeper {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    @Import(NeedsZookeeper.class)
    static class ZookeeperWorkerUnderDb {
    }

    @Configuration(proxyBeanMethods = false)
    @Import(NeedsRedis.class)
    static class WithoutEnableIdWorker {
    }

    /** The analysis Spring Boot would print for {@code app}'s failed startup. */
    private static FailureAnalysis analysis(Class<?> app) {
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        AtomicReference<FailureAnalysis> analysis = new AtomicReference<>();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withInitializer(started::set).withUserConfiguration(app)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    assertThat(context).hasFailed();
                    analysis.set(new WorkerTypeFailureAnalyzer(started.get().getBeanFactory())
                            .analyze(context.getStartupFailure()));
                });
        assertThat(analysis.get()).as("analysis of %s", app.getSimpleName()).isNotNull();
        return analysis.get();
    }

    @Test
    void aDbIdWorkerUnderRedisModeIsExplainedNamingTheModeAndTheTypeToInject() {
        FailureAnalysis analysis = analysis(DbWorkerUnderRedis.class);
        assertThat(analysis.getDescription()).isEqualTo("Field ids in " + NeedsDb.class.getName() + " required a "
                + "bean of type 'io.github.idworker.snowflake.DBIdWorker', but @EnableIdWorker(mode = CenterMode.REDIS) "
                + "is enabled, which registers 'redisIdWorker' (RedisIdWorker). A DBIdWorker exists only under "
                + "@EnableIdWorker(mode = CenterMode.DB): each mode registers its own worker type.");
        assertThat(analysis.getAction()).isEqualTo("Inject RedisIdWorker (the worker of the enabled mode), or "
                + "IdGenerator, which the worker of every mode implements, so that the code does not depend on the "
                + "mode; or switch to @EnableIdWorker(mode = CenterMode.DB) if the JDBC centre is the one you meant.");
    }

    @Test
    void everyOtherPairOfModesIsExplainedToo() {
        Map<Class<?>, String[]> cases = Map.of(
                RedisWorkerUnderDb.class, new String[] {"RedisIdWorker", "CenterMode.DB", "DBIdWorker"},
                DbWorkerUnderZookeeper.class, new String[] {"DBIdWorker", "CenterMode.ZOOKEEPER", "ZookeeperIdWorker"},
                ZookeeperWorkerUnderDb.class, new String[] {"ZookeeperIdWorker", "CenterMode.DB", "DBIdWorker"});
        cases.forEach((app, c) -> {
            FailureAnalysis analysis = analysis(app);
            assertThat(analysis.getDescription()).contains("required a bean of type", c[0] + "'",
                    "but @EnableIdWorker(mode = " + c[1] + ") is enabled");
            assertThat(analysis.getAction()).startsWith("Inject " + c[2] + " (the worker of the enabled mode), or "
                    + "IdGenerator");
        });
    }

    @Test
    void withoutEnableIdWorkerTheAnalysisSaysToAddIt() {
        FailureAnalysis analysis = analysis(WithoutEnableIdWorker.class);
        assertThat(analysis.getDescription()).endsWith("required a bean of type "
                + "'io.github.idworker.snowflake.RedisIdWorker', but no @EnableIdWorker is present, so no worker is "
                + "registered.");
        assertThat(analysis.getAction()).startsWith("Add @EnableIdWorker(mode = CenterMode.REDIS) to a @Configuration "
                + "class");
    }

    /** Spring Boot finds the analyzer (META-INF/spring.factories) and prefers it to its own missing-bean analysis. */
    @Test
    void aRealStartupPrintsThisAnalysis(CapturedOutput output) {
        SpringApplication application = new SpringApplication(DbWorkerUnderRedis.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        application.setDefaultProperties(Map.of("spring.main.banner-mode", "off"));
        assertThatThrownBy(application::run).isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START", "but @EnableIdWorker(mode = CenterMode.REDIS) is "
                + "enabled, which registers 'redisIdWorker' (RedisIdWorker)", "Inject RedisIdWorker");
    }
}
