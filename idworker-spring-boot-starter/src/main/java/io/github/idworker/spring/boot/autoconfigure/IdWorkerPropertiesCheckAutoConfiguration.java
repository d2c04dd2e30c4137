package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Always on, whether or not an {@code @Enable…} annotation of idworker is present: an {@code idworker.*} value
 * that nothing would read or check never passes silently. It logs a WARN naming the property when
 * <ul>
 *   <li>{@code idworker.*} cannot be bound at all (e.g. {@code idworker.snowflake.worker-bits=ten});</li>
 *   <li>properties of a feature are set while its annotation is missing, so they have no effect;</li>
 *   <li>the worker's properties are set without {@code @EnableIdWorker} and would fail its startup check.</li>
 * </ul>
 * With the annotation present the feature's own configuration checks its values and fails the startup, so this
 * adds nothing there. It never fails a startup itself: an application that does not use idworker yet must start.
 */
@AutoConfiguration
public class IdWorkerPropertiesCheckAutoConfiguration {

    @Bean
    static IdWorkerPropertiesCheck idWorkerPropertiesCheck() {
        return new IdWorkerPropertiesCheck();
    }

    /** One idworker feature: its annotation, the configurations it imports and the properties only it reads. */
    record Feature(String annotation, List<String> configurations, Predicate<String> reads) {

        boolean enabledIn(ConfigurableListableBeanFactory beanFactory) {
            // an imported configuration's bean is named by its class name
            return configurations.stream().anyMatch(beanFactory::containsBeanDefinition);
        }
    }

    static final String PACKAGE = "io.github.idworker.spring.boot.autoconfigure.";

    static final Feature WORKER = new Feature("@EnableIdWorker",
            List.of(PACKAGE + "DBIdWorkerConfig", PACKAGE + "RedisIdWorkerConfig", PACKAGE + "ZookeeperIdWorkerConfig"),
            name -> name.equals("idworker.namespace") || name.startsWith("idworker.snowflake.")
                    || name.startsWith("idworker.lease.") || name.startsWith("idworker.zookeeper.")
                    || name.equals("idworker.jdbc.table")
                    || name.equals("idworker.jdbc.initialize-schema"));

    /** Features in the order their warnings are logged; shared groups (jdbc timeouts, redis, client) are left out. */
    static final List<Feature> FEATURES = List.of(WORKER,
            new Feature("@EnableSegmentIdGenerators", List.of(PACKAGE + "SegmentIdGeneratorsConfig"),
                    name -> name.startsWith("idworker.segment.")),
            new Feature("@EnableSerialNumbers", List.of(PACKAGE + "SerialStoreConfig"),
                    name -> name.startsWith("idworker.serial.")),
            new Feature("@EnableIdPools", List.of(PACKAGE + "IdPoolsConfig"),
                    name -> name.startsWith("idworker.pool.")));

    /** Runs the checks once every bean definition, the imported configurations' included, is known. */
    static class IdWorkerPropertiesCheck implements SmartInitializingSingleton, BeanFactoryAware, EnvironmentAware {

        private static final Logger log = LoggerFactory.getLogger(IdWorkerPropertiesCheck.class);

        // both set by Spring's Aware callbacks, which run before afterSingletonsInstantiated
        @SuppressWarnings("NullAway.Init")
        private ConfigurableListableBeanFactory beanFactory;
        @SuppressWarnings("NullAway.Init")
        private Environment environment;

        @Override
        public void setBeanFactory(BeanFactory beanFactory) {
            this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
        }

        @Override
        public void setEnvironment(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void afterSingletonsInstantiated() {
            IdWorkerProperties properties;
            try {
                properties = Binder.get(environment).bindOrCreate(IdWorkerProperties.PREFIX, IdWorkerProperties.class);
            } catch (BindException e) {
                String property = e.getProperty() != null ? e.getProperty().getName().toString() : e.getName().toString();
                log.warn("idworker: {} cannot be read ({}); fix or remove it", property,
                        e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
                return;
            }
            Set<String> names = idworkerPropertyNames();
            for (Feature feature : FEATURES) {
                Set<String> unused = new TreeSet<>(names.stream().filter(feature.reads()).toList());
                if (unused.isEmpty() || feature.enabledIn(beanFactory)) {
                    continue;
                }
                log.warn("idworker: {} {} set, but no {} is present, so nothing reads {}; add {} to a @Configuration "
                                + "class or remove {}", unused, unused.size() == 1 ? "is" : "are", feature.annotation(),
                        unused.size() == 1 ? "it" : "them", feature.annotation(), unused.size() == 1 ? "it" : "them");
                if (feature == WORKER) {
                    checkWorker(properties);
                }
            }
        }

        /** The check {@code @EnableIdWorker} would run at startup, as a warning. */
        private void checkWorker(IdWorkerProperties properties) {
            try {
                WorkerOptionsFactory.create(properties, environment);
            } catch (IdWorkerConfigurationException e) {
                log.warn("idworker: {} (@EnableIdWorker would refuse to start with this value)", e.getMessage());
            }
        }

        private Set<String> idworkerPropertyNames() {
            Set<String> names = new TreeSet<>();
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
                if (source instanceof IterableConfigurationPropertySource iterable) {
                    iterable.stream().map(Object::toString).filter(n -> n.startsWith(IdWorkerProperties.PREFIX + "."))
                            .forEach(names::add);
                }
            }
            return names;
        }
    }
}
