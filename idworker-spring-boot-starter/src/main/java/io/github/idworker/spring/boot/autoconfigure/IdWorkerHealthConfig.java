package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.AbstractIdWorker;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Map;

/**
 * Registers {@link IdWorkerHealthIndicator} (health component {@code idWorker}) beside the worker of
 * {@code @EnableIdWorker}, when the application has {@code spring-boot-health} (for example through
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
    public IdWorkerHealthIndicator idWorkerHealthIndicator(Map<String, AbstractIdWorker> workers) {
        return new IdWorkerHealthIndicator(workers);
    }
}
