package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;

/**
 * Every DDL file idworker-core ships runs as it is on the machine's MariaDB and PostgreSQL
 * ({@link RealServices}). Each run gets a database (MariaDB) or schema (PostgreSQL) of its own, dropped
 * afterwards, so the default table names never meet another test's tables.
 */
@Tag("real-services")
class RealServicesShippedSchemaTest {

    @ParameterizedTest
    @EnumSource(ShippedSchemas.class)
    void onMariaDb(ShippedSchemas schema) throws Exception {
        String database = "idw_ddl_" + UUID.randomUUID().toString().substring(0, 8);
        String url = RealServices.MARIADB_URL.substring(0, RealServices.MARIADB_URL.lastIndexOf('/') + 1) + database;
        inSpaceOfItsOwn(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "DATABASE " + database, "",
                () -> schema.runTwiceAndVerify(new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(), url,
                        RealServices.MARIADB_USER, ""), "mysql"));
    }

    @ParameterizedTest
    @EnumSource(ShippedSchemas.class)
    void onPostgreSql(ShippedSchemas schema) throws Exception {
        String pgSchema = "idw_ddl_" + UUID.randomUUID().toString().substring(0, 8);
        String url = RealServices.POSTGRES_URL + (RealServices.POSTGRES_URL.contains("?") ? "&" : "?")
                + "currentSchema=" + pgSchema;
        inSpaceOfItsOwn(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "SCHEMA " + pgSchema, " CASCADE",
                () -> schema.runTwiceAndVerify(new SimpleDriverDataSource(new org.postgresql.Driver(), url,
                        RealServices.POSTGRES_USER, ""), "postgresql"));
    }

    /** Creates {@code space} (a database or schema), runs {@code body} and drops it again, whatever happened. */
    private static void inSpaceOfItsOwn(String adminUrl, String user, String space, String dropSuffix, Runnable body)
            throws Exception {
        try (Connection admin = DriverManager.getConnection(adminUrl, user, "");
             Statement st = admin.createStatement()) {
            st.execute("CREATE " + space);
            try {
                body.run();
            } finally {
                st.execute("DROP " + space + dropSuffix);
            }
        }
    }
}
