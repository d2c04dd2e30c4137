package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * The beans of {@code @EnableSerialNumbers} that both modes share: a {@link JdbcSerialStore} named
 * {@code serialStore} over the application's single {@link DataSource} (the rule table and the durable high-water
 * of every rule and period), and the {@link SerialRules} named {@code serialRules} that reads rules from whichever
 * bean is named {@code serialStore}. Each backs off when the application declares a bean of that name.
 *
 * <p>Steps at startup: bind {@code idworker.serial.*} and the timeouts {@code idworker.jdbc.statement-timeout}
 * and {@code idworker.jdbc.network-timeout}; create the serial tables when
 * {@code idworker.serial.initialize-schema} says so (after any {@code spring.sql.init} scripts); check they exist;
 * check every rule under {@code idworker.serial.rules} and register it (the table wins; a changed shape fails
 * naming the property). Any failure stops the startup with a message naming the property at fault.
 *
 * <p>The data source is the single candidate (the only {@code DataSource} bean, or the one marked
 * {@code @Primary}), the rule of {@code @ConditionalOnSingleCandidate}; it is looked up when the store is built
 * rather than by that condition, so that an application without one fails at startup naming
 * {@code spring.datasource.url} instead of silently getting no store.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class SerialStoreConfig {

    /** Name of the store bean; declare your own {@code SerialStore} with this name to replace it. */
    public static final String STORE_BEAN = "serialStore";

    /** Name of the rule lookup bean. */
    public static final String RULES_BEAN = "serialRules";

    /** Name of the {@code SerialNumbers} bean, in either mode. */
    public static final String NUMBERS_BEAN = "serialNumbers";

    static final String RULE_REFRESH_PROPERTY = "idworker.serial.rule-refresh";

    @Bean(name = STORE_BEAN)
    @ConditionalOnMissingBean(name = STORE_BEAN)
    @DependsOnDatabaseInitialization
    public JdbcSerialStore serialStore(ObjectProvider<DataSource> dataSources, IdWorkerProperties properties) {
        DataSource dataSource = SingleDataSource.require(dataSources, "@EnableSerialNumbers",
                "a SerialStore bean named " + STORE_BEAN);
        SerialProperties serial = properties.getSerial();
        JdbcProperties jdbc = properties.getJdbc();
        JdbcSerialStore store = new JdbcSerialStore(dataSource, serial.getTable(),
                new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout()));
        if (serial.getInitializeSchema().creates(dataSource)) {
            store.createSchemaIfMissing();
        }
        store.verifySchema();
        return store;
    }

    @Bean(name = RULES_BEAN)
    @ConditionalOnMissingBean(name = RULES_BEAN)
    public SerialRules serialRules(@Qualifier(STORE_BEAN) SerialStore store, IdWorkerProperties properties) {
        Duration refresh = properties.getSerial().getRuleRefresh();
        if (refresh == null || refresh.toMillis() < 1) {
            throw new IdWorkerConfigurationException(RULE_REFRESH_PROPERTY, "must be at least 1ms, was " + refresh);
        }
        // the store's own description: the JDBC store names its tables and never a URL, so no credential reaches
        // the message of an UnknownSerialRuleException
        return new SerialRules(store, refresh);
    }

    /** Registers the configured rules once, before either mode hands out a serial. */
    @Bean
    SerialRuleRegistration serialRuleRegistration(@Qualifier(RULES_BEAN) SerialRules rules,
                                                  IdWorkerProperties properties) {
        return new SerialRuleRegistration(rules, properties.getSerial());
    }
}
