package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Always on, whether or not an {@code @Enable…} annotation of idworker is present: an {@code idworker.*} value
 * that nothing would read or check never passes silently. It logs a WARN naming the property when
 * <ul>
 *   <li>a name is no property of idworker (a typo such as {@code idworker.lease.tll}, or a property of another
 *       version), saying where it was set and the property it most likely meant; names under the prefix of another
 *       {@code @ConfigurationProperties} bean, such as the ID server's {@code idworker.server.*}, are that bean's;</li>
 *   <li>a duration is a bare number, e.g. {@code idworker.lease.ttl=15}, which Spring Boot reads as 15 ms;</li>
 *   <li>{@code idworker.*} cannot be bound at all (e.g. {@code idworker.snowflake.worker-bits=ten});</li>
 *   <li>properties of a feature are set while its annotation is missing, so they have no effect;</li>
 *   <li>the worker's properties are set without {@code @EnableIdWorker} and would fail its startup check.</li>
 * </ul>
 * The first two are checked on the bean definitions, before any bean is created, so they are logged before a
 * startup failure they may explain. With the annotation present the feature's own configuration checks the values
 * and fails the startup. This check never fails a startup itself: an application that does not use idworker yet
 * must start.
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
                    || name.startsWith("idworker.generators.") || name.startsWith("idworker.generators[")
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

    /**
     * Checks the names once every bean definition, the imported configurations' included, is known, and the values
     * once every singleton is created.
     */
    static class IdWorkerPropertiesCheck implements BeanFactoryPostProcessor, SmartInitializingSingleton,
            BeanFactoryAware, EnvironmentAware {

        private static final Logger log = LoggerFactory.getLogger(IdWorkerPropertiesCheck.class);

        // both set by Spring's Aware callbacks, which run before postProcessBeanFactory and afterSingletonsInstantiated
        @SuppressWarnings("NullAway.Init")
        private ConfigurableListableBeanFactory beanFactory;
        @SuppressWarnings("NullAway.Init")
        private Environment environment;
        /** Names already warned about as unknown, left out of the warnings per feature. */
        private Set<String> unknown = Set.of();

        @Override
        public void setBeanFactory(BeanFactory beanFactory) {
            this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
        }

        @Override
        public void setEnvironment(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            IdworkerPropertyNames names = IdworkerPropertyNames.of(environment);
            Map<String, @Nullable Object> unknownNames = names.unknown(claimedPrefixes(beanFactory));
            if (!unknownNames.isEmpty()) {
                PropertySuggestions suggestions = PropertySuggestions.load(beanFactory.getBeanClassLoader());
                unknownNames.forEach((name, origin) -> {
                    String closest = suggestions.closest(name);
                    log.warn("idworker: {}{} is not a property of idworker, so nothing reads it; {}", name,
                            origin != null ? " (" + origin + ")" : "",
                            closest != null ? "did you mean " + closest + "?" : "fix or remove it");
                });
                this.unknown = Set.copyOf(unknownNames.keySet());
            }
            names.bareDurations().forEach((name, value) -> log.warn("idworker: {}",
                    IdworkerPropertyNames.hint(name, value)));
        }

        /** {@code idworker.*} prefixes of the application's own {@code @ConfigurationProperties} beans. */
        private static Set<String> claimedPrefixes(ConfigurableListableBeanFactory beanFactory) {
            Set<String> prefixes = new TreeSet<>();
            for (String name : beanFactory.getBeanDefinitionNames()) {
                try {
                    // no FactoryBean is created to find out: its product's prefix goes unseen
                    ConfigurationProperties annotation = beanFactory.findAnnotationOnBean(name,
                            ConfigurationProperties.class, false);
                    String prefix = annotation == null ? "" : !annotation.prefix().isEmpty() ? annotation.prefix()
                            : annotation.value();
                    if (prefix.startsWith(IdWorkerProperties.PREFIX + ".")
                            && !prefix.equals(IdServiceClientProperties.PREFIX)) {
                        prefixes.add(prefix);
                    }
                } catch (RuntimeException e) {
                    // a bean whose type cannot be told without creating it claims nothing here
                }
            }
            return prefixes;
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
            names.removeAll(unknown);
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
                String hints = IdworkerPropertyNames.of(environment).unitHints(String.valueOf(e.getMessage()));
                log.warn("idworker: {} (@EnableIdWorker would refuse to start with this value){}", e.getMessage(),
                        hints.isEmpty() ? "" : "; " + hints.replace("\n", "; "));
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
