package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.spring.boot.actuate.IdWorkerSources;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Map;
import java.util.TreeMap;

/**
 * Registers {@link IdWorkerHealthIndicator} (health component {@code idWorker}) beside the worker of
 * {@code @EnableIdWorker} and its named generators, when the application has {@code spring-boot-health} (for example through
 * {@code spring-boot-starter-actuator}). Switched off with {@code management.health.idworker.enabled=false};
 * replaced by declaring a bean named {@code idWorkerHealthIndicator}. Imported by name from
 * {@code IdWorkerConfigurationSelector} with either mode, so that it is read without loading its classes when
 * {@code spring-boot-health} is absent, and is processed together with the worker's configuration.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnEnabledHealthIndicator("idworker")
public class IdWorkerHealthConfig {

    @Bean
    @ConditionalOnMissingBean(name = "idWorkerHealthIndicator")
    public IdWorkerHealthIndicator idWorkerHealthIndicator(Map<String, AbstractIdWorker> workers,
                                                           ConfigurableListableBeanFactory beanFactory) {
        // the named generators of idworker.generators are no candidates for injection by type, so the map lacks them
        Map<String, AbstractIdWorker> all = new TreeMap<>(workers);
        for (String name : beanFactory.getBeanNamesForType(AbstractIdWorker.class, false, false)) {
            if (beanFactory.containsBeanDefinition(name)
                    && beanFactory.getBeanDefinition(name).getAttribute(IdWorkerSources.GENERATOR_ATTRIBUTE) != null) {
                all.put(name, beanFactory.getBean(name, AbstractIdWorker.class));
            }
        }
        return new IdWorkerHealthIndicator(all);
    }
}
