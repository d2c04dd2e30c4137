package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The named snowflake generators of {@code idworker.generators.<name>.*}, beside the worker of
 * {@code @EnableIdWorker}: imported by name from {@code IdWorkerConfigurationSelector} with every mode, it
 * registers nothing when no generator is configured. See {@link NamedGeneratorRegistrar}.
 */
@Configuration(proxyBeanMethods = false)
public class NamedGeneratorsConfig {

    /** Static: a registry post-processor must exist before the configuration's own bean is created. */
    @Bean
    static NamedGeneratorRegistrar idworkerNamedGeneratorRegistrar() {
        return new NamedGeneratorRegistrar();
    }
}
