package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.IdPools;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.spring.boot.actuate.GeneratorsHealthIndicator;
import io.github.idworker.spring.boot.actuate.IdWorkerEndpoint;
import io.github.idworker.spring.boot.actuate.IdWorkerMeters;
import io.github.idworker.spring.boot.actuate.IdWorkerReporter;
import io.github.idworker.spring.boot.actuate.IdWorkerSources;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.util.function.Function;

/**
 * Operations for every generator mode in the context: the Actuator endpoint {@code idworker}, one health
 * component per mode besides the worker's {@code idWorker} ({@code idworkerSegments}, {@code idworkerSequences},
 * {@code idworkerSerials}, {@code idworkerPools}) and Micrometer meters; each part only when its library is on
 * the class path, and all of them reading memory only. An auto-configuration rather than an import of the
 * {@code @Enable…} annotations, so that it needs no change to them: endpoint and meters look the generators up
 * at run time, health registers an indicator per mode present once every configuration is parsed. Each nested
 * part is guarded by a condition on a class
 * <em>name</em>, so that a missing optional jar is never loaded.
 */
@AutoConfiguration
@Configuration(proxyBeanMethods = false)
public class IdWorkerOperationsAutoConfiguration {

    static final String ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";
    static final String ENDPOINT_CONDITION =
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint";
    static final String HEALTH_INDICATOR = "org.springframework.boot.health.contributor.HealthIndicator";

    /** The generators of the context and the report over them, shared by endpoint, health and meters. */
    @Bean
    @ConditionalOnMissingBean
    public IdWorkerReporter idWorkerReporter(ListableBeanFactory beans) {
        return new IdWorkerReporter(new IdWorkerSources(beans));
    }

    /** {@code GET /actuator/idworker}, when Actuator is present and the endpoint is exposed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {ENDPOINT, ENDPOINT_CONDITION})
    static class EndpointConfig {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(IdWorkerEndpoint.class)
        IdWorkerEndpoint idWorkerEndpoint(IdWorkerReporter reporter) {
            return new IdWorkerEndpoint(reporter);
        }
    }

    /**
     * One health component per mode present; switched off with the worker's {@code idWorker} by
     * {@code management.health.idworker.enabled=false}; each replaced by a bean of the same name.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = HEALTH_INDICATOR)
    @ConditionalOnEnabledHealthIndicator("idworker")
    static class HealthConfig {

        @Bean
        static HealthRegistrar idWorkerHealthRegistrar() {
            return new HealthRegistrar();
        }
    }

    /**
     * Registers the health indicator of each mode whose generators the context defines. A registry post-processor
     * rather than {@code @ConditionalOnBean}: the {@code @Enable…} annotations import their configurations through
     * deferred selectors that Spring processes after the auto-configurations, so a bean condition here would not
     * see them yet; once every configuration class is parsed, their bean definitions are all there.
     */
    static final class HealthRegistrar implements BeanDefinitionRegistryPostProcessor {

        @Override
        public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
            if (!(registry instanceof ListableBeanFactory beans)) {
                return;
            }
            register(registry, beans, SegmentIdGenerators.class, "idworkerSegmentsHealthIndicator",
                    GeneratorsHealthIndicator::segments);
            register(registry, beans, RedisSequenceGenerators.class, "idworkerSequencesHealthIndicator",
                    GeneratorsHealthIndicator::sequences);
            register(registry, beans, SerialNumbers.class, "idworkerSerialsHealthIndicator",
                    GeneratorsHealthIndicator::serials);
            register(registry, beans, IdPools.class, "idworkerPoolsHealthIndicator", GeneratorsHealthIndicator::pools);
        }

        private static void register(BeanDefinitionRegistry registry, ListableBeanFactory beans, Class<?> mode,
                                     String name, Function<IdWorkerReporter, HealthIndicator> indicator) {
            // no eager init: only the definitions' types are read, nothing is created this early
            if (registry.containsBeanDefinition(name) || beans.getBeanNamesForType(mode, true, false).length == 0) {
                return;
            }
            RootBeanDefinition definition = new RootBeanDefinition(HealthIndicator.class,
                    () -> indicator.apply(beans.getBean(IdWorkerReporter.class)));
            registry.registerBeanDefinition(name, definition);
        }

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        }
    }

    /**
     * The meters, when Micrometer is on the class path and the context has a {@code MeterRegistry}. The registry
     * is looked up once every singleton exists rather than by {@code @ConditionalOnBean}, so that the order of
     * the auto-configuration that declares it does not matter.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = IdPoolsMetricsConfig.METER_REGISTRY)
    static class MetricsConfig {

        @Bean
        @ConditionalOnMissingBean(name = "idWorkerMetersBinder")
        MetersBinder idWorkerMetersBinder(ObjectProvider<MeterRegistry> registries, ListableBeanFactory beans,
                                          Environment environment) {
            return new MetersBinder(registries, beans, maxTags(environment));
        }

        /** {@value IdWorkerMeters.MAX_TAGS_PROPERTY}, checked: at least 1. */
        static int maxTags(Environment environment) {
            int maxTags = Binder.get(environment).bindOrCreate(IdWorkerProperties.PREFIX, IdWorkerProperties.class)
                    .getMetrics().getMaxTags();
            if (maxTags < 1) {
                throw new IdWorkerConfigurationException(IdWorkerMeters.MAX_TAGS_PROPERTY,
                        "must be greater than 0, was " + maxTags + " (it caps the generators of one mode that get "
                                + "meters)");
            }
            return maxTags;
        }
    }

    /** Starts {@link IdWorkerMeters} once the context's singletons exist, and removes them on close. */
    static final class MetersBinder implements SmartInitializingSingleton, DisposableBean {

        private final ObjectProvider<MeterRegistry> registries;
        private final ListableBeanFactory beans;
        private final int maxTags;
        private @Nullable IdWorkerMeters meters;

        MetersBinder(ObjectProvider<MeterRegistry> registries, ListableBeanFactory beans, int maxTags) {
            this.registries = registries;
            this.beans = beans;
            this.maxTags = maxTags;
        }

        @Override
        public void afterSingletonsInstantiated() {
            MeterRegistry registry = registries.getIfUnique();
            if (registry != null) {
                meters = new IdWorkerMeters(new IdWorkerSources(beans), registry, maxTags);
                meters.start();
            }
        }

        /** The meters, or {@code null} without a registry. */
        @Nullable IdWorkerMeters meters() {
            return meters;
        }

        @Override
        public void destroy() {
            if (meters != null) {
                meters.close();
            }
        }
    }
}
