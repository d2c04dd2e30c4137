package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.spring.annotation.EnableIdPools;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code initialize-schema: embedded} (the default of every store) means what Spring Boot means by an embedded
 * database: an in-memory H2 gets its tables, a file-based H2 (like any database server, see
 * {@link RealServicesSchemaInitializationTest}) does not, and the startup fails naming the property. Tables
 * that {@code spring.sql.init} creates from the shipped DDL exist before idworker checks them, for every store.
 */
class SchemaInitializationTest {

    /** One store per {@code initialize-schema} property, with the annotation that brings it in. */
    enum Store {
        LEASE("idworker.jdbc", LeaseApp.class, "lease/jdbc"),
        SEGMENT("idworker.segment", SegmentApp.class, "segment/jdbc"),
        SERIAL("idworker.serial", SerialApp.class, "serial/jdbc"),
        POOL("idworker.pool", PoolApp.class, "pool/jdbc");

        final String prefix;
        final Class<?> app;
        final String folder;

        Store(String prefix, Class<?> app, String folder) {
            this.prefix = prefix;
            this.app = app;
            this.folder = folder;
        }

        String property() {
            return prefix + ".initialize-schema";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class LeaseApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class SegmentApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class SerialApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdPools
    static class PoolApp {
    }

    /** {@code store} over {@code url} with a table name of its own. */
    static ApplicationContextRunner runner(Store store, String url, String table) {
        return new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataRedisAutoConfiguration.class))
                .withUserConfiguration(store.app)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + TestNames.namespace(),
                        "spring.datasource.username=sa", store.prefix + ".table=" + table,
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + (store == Store.POOL ? EmbeddedRedis.port() : 1));
    }

    static String table() {
        return "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void anInMemoryH2IsEmbeddedAndGetsItsTables(Store store) throws SQLException {
        String url = TestNames.h2Url();
        String table = table();
        runner(store, url, table).run(context -> assertThat(context).hasNotFailed());
        assertThat(tableExists(url, "sa", table)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aFileBasedH2IsNotEmbeddedSoNothingIsCreatedAndTheStartupNamesTheProperty(Store store, @TempDir Path dir)
            throws SQLException {
        String url = "jdbc:h2:file:" + dir.resolve("ids").toAbsolutePath();
        String table = table();
        runner(store, url, table).run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo(store.property());
            assertThat(cause.getMessage()).contains(table).contains(store.property() + "=always");
            assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                    .contains(store.property() + "=always");
        });
        assertThat(tableExists(url, "sa", table)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void tablesThatSpringSqlInitCreatesFromTheShippedDdlAreUsedWithInitializeSchemaNever(Store store) {
        String url = TestNames.h2Url();
        new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceInitializationAutoConfiguration.class, DataRedisAutoConfiguration.class))
                .withUserConfiguration(store.app)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + TestNames.namespace(),
                        "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:io/github/idworker/" + store.folder + "/schema-h2.sql",
                        store.property() + "=never", "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + (store == Store.POOL ? EmbeddedRedis.port() : 1))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theLeaseTableThatSpringSqlInitCreatesServesTheWorker() {
        String url = TestNames.h2Url();
        String namespace = TestNames.namespace();
        new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceInitializationAutoConfiguration.class))
                .withUserConfiguration(LeaseApp.class)
                .withPropertyValues("spring.datasource.url=" + url, "idworker.namespace=" + namespace,
                        "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:io/github/idworker/lease/jdbc/schema-h2.sql",
                        "idworker.jdbc.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DBIdWorker worker = context.getBean(DBIdWorker.class);
                    assertThat(worker.nextId()).isPositive();
                    try (Connection c = DriverManager.getConnection(url, "sa", "");
                         ResultSet rs = c.createStatement().executeQuery(
                                 "SELECT owner_token FROM idworker_worker_slot WHERE ns = '" + namespace + "'")) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).isEqualTo(worker.currentLease().owner());
                    }
                });
    }

    static boolean tableExists(String url, String user, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, "");
             ResultSet rs = c.getMetaData().getTables(null, null, null, new String[] {"TABLE"})) {
            while (rs.next()) {
                if (rs.getString("TABLE_NAME").equalsIgnoreCase(table)) {
                    return true;
                }
            }
            return false;
        }
    }
}
