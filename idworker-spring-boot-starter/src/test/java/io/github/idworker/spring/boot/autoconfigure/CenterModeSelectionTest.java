package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** The mode picks one configuration, and the other mode's optional libraries need not be present. */
class CenterModeSelectionTest {

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DefaultModeApp {
    }

    @Test
    void dbIsTheDefaultModeAndNeedsNoRedisClasses() {
        new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "redis.clients"))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(DefaultModeApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(DBIdWorker.class);
                    assertThat(context).hasBean("dbIdWorker").hasBean("dbSequenceManager");
                    assertThat(context).doesNotHaveBean("redisIdWorker").doesNotHaveBean("redisSequenceManager");
                    assertThat(context.getBean(DBIdWorker.class).nextId()).isPositive();
                });
    }
}
