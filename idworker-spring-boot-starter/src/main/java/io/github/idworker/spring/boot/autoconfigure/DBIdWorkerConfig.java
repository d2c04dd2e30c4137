package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * The beans of {@code @EnableIdWorker(mode = CenterMode.DB)}: a {@link JdbcSequenceManager} named
 * {@code dbSequenceManager} over the application's single {@link DataSource} (backs off when the application
 * declares a bean of that name) and the {@link DBIdWorker} named {@code dbIdWorker} that leases its worker id
 * from whichever bean carries that name.
 *
 * <p>Steps at startup: bind {@code idworker.*}; check the JDBC timeouts (statement timeout shorter than the
 * heartbeat, network timeout longer than the statement timeout); create the lease tables when
 * {@code idworker.jdbc.initialize-schema} says so (after any {@code spring.sql.init} scripts, Flyway or
 * Liquibase); check the tables exist; build and validate the worker's options; borrow a worker id. Steps at
 * shutdown: return the worker id before the context's lifecycle beans stop.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class DBIdWorkerConfig {

    /** Name of the lease manager bean the worker uses; declare your own bean with this name to replace it. */
    public static final String SEQUENCE_MANAGER_BEAN = "dbSequenceManager";

    /** Name of the worker bean. */
    public static final String WORKER_BEAN = "dbIdWorker";

    @Bean(name = SEQUENCE_MANAGER_BEAN)
    @ConditionalOnMissingBean(name = SEQUENCE_MANAGER_BEAN)
    @DependsOnDatabaseInitialization
    public JdbcSequenceManager dbSequenceManager(ObjectProvider<DataSource> dataSources,
                                                 IdWorkerProperties properties, Environment environment) {
        DataSource dataSource = SingleDataSource.require(dataSources, "@EnableIdWorker(mode = CenterMode.DB)",
                "an ISequenceManager bean named " + SEQUENCE_MANAGER_BEAN);
        JdbcProperties jdbc = properties.getJdbc();
        JdbcTimeouts timeouts = new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout());
        checkStatementTimeout(timeouts, WorkerOptionsFactory.create(properties, environment).heartbeatInterval(),
                "idworker.lease.");
        JdbcSequenceManager manager = new JdbcSequenceManager(dataSource, jdbc.getTable(), timeouts);
        if (jdbc.getInitializeSchema().creates(dataSource)) {
            manager.createSchemaIfMissing();
        }
        manager.verifySchema();
        return manager;
    }

    /**
     * Fails unless the statement timeout is shorter than the heartbeat of a worker whose lease keys start with
     * {@code leasePrefix} ({@code idworker.lease.}, or a named generator's), so a renewal that hangs is given up
     * and retried before the lease runs out.
     */
    static void checkStatementTimeout(JdbcTimeouts timeouts, Duration heartbeat, String leasePrefix) {
        if (timeouts.statementTimeout().compareTo(heartbeat) >= 0) {
            throw new IdWorkerConfigurationException(JdbcTimeouts.STATEMENT_TIMEOUT_PROPERTY, "must be shorter than "
                    + leasePrefix + "heartbeat-interval (" + heartbeat + "; a third of " + leasePrefix
                    + "ttl unless set), so a renewal that hangs is given up and retried before the lease runs out, was "
                    + timeouts.statementTimeout());
        }
    }

    @Bean(name = WORKER_BEAN, initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean(name = WORKER_BEAN)
    public DBIdWorker dbIdWorker(@Qualifier(SEQUENCE_MANAGER_BEAN) ISequenceManager sequenceManager,
                                 IdWorkerProperties properties, Environment environment) {
        return new DBIdWorker(sequenceManager, WorkerOptionsFactory.create(properties, environment));
    }

    /** Returns the lease of {@code dbIdWorker} before the context's connection factories stop. */
    @Bean
    ClosingLifecycle dbIdWorkerLifecycle(@Qualifier(WORKER_BEAN) AbstractIdWorker worker) {
        return new ClosingLifecycle(worker);
    }
}
