package io.github.idworker.sample;

import io.github.idworker.jdbc.JdbcDialect;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Profile {@code db}: this application's own lease manager, declared under the name {@code dbSequenceManager} so
 * that idworker's default JDBC manager backs off and {@code dbIdWorker} leases through it. The tables are
 * idworker's own, from the DDL it ships ({@code io/github/idworker/lease/jdbc/schema-<database>.sql} in
 * idworker-core), which Spring Boot runs on the embedded database (application-db.yml); on a database of your own
 * run that file once.
 */
@Configuration(proxyBeanMethods = false)
@Profile("db")
public class MyBatisSequenceManagerConfig {

    @Bean
    @DependsOnDatabaseInitialization
    MyBatisSequenceManager dbSequenceManager(WorkerSlotMapper mapper, DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            JdbcDialect dialect = JdbcDialect.fromProductName(connection.getMetaData().getDatabaseProductName());
            return new MyBatisSequenceManager(mapper, dataSource, dialect);
        }
    }
}
