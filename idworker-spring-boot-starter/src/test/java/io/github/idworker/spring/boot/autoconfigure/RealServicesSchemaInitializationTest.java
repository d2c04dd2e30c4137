package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code initialize-schema: embedded} creates nothing in a database server: with a table missing on the machine's
 * MariaDB or PostgreSQL ({@link RealServices}), every store fails the startup naming its property, and no table
 * appears. The table names are random and never created, so nothing is left behind.
 */
@Tag("real-services")
class RealServicesSchemaInitializationTest {

    @ParameterizedTest
    @EnumSource(SchemaInitializationTest.Store.class)
    void mariaDbIsNotEmbedded(SchemaInitializationTest.Store store) throws Exception {
        notCreated(store, RealServices.MARIADB_URL, RealServices.MARIADB_USER);
    }

    @ParameterizedTest
    @EnumSource(SchemaInitializationTest.Store.class)
    void postgreSqlIsNotEmbedded(SchemaInitializationTest.Store store) throws Exception {
        notCreated(store, RealServices.POSTGRES_URL, RealServices.POSTGRES_USER);
    }

    private static void notCreated(SchemaInitializationTest.Store store, String url, String user) throws Exception {
        String table = SchemaInitializationTest.table();
        SchemaInitializationTest.runner(store, url, table)
                .withPropertyValues("spring.datasource.username=" + user, "spring.datasource.password=")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo(store.property());
                    assertThat(cause.getMessage()).contains(table).contains(store.property() + "=always");
                });
        assertThat(SchemaInitializationTest.tableExists(url, user, table)).isFalse();
    }
}
