package io.github.idworker.spring.boot.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers {@link PoolAlarmMetrics} (bean {@code poolAlarmMetrics}, a {@code PoolAlarmListener} the
 * {@code idPools} bean hears like any other) when Micrometer is on the class path. Imported by name from
 * {@code IdPoolsConfigurationSelector} and skipped by a condition on a class <em>name</em>, so that it is read
 * without loading any Micrometer class when Micrometer is absent; replaced by declaring a bean named
 * {@code poolAlarmMetrics}.
 *
 * <p>The registry is looked up when the bean is built rather than by {@code @ConditionalOnBean}: this
 * configuration is imported by the application's annotation, not ordered after the auto-configuration that
 * declares the registry, so such a condition could run before the registry's definition exists.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = IdPoolsMetricsConfig.METER_REGISTRY)
public class IdPoolsMetricsConfig {

    static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

    @Bean
    @ConditionalOnMissingBean(name = "poolAlarmMetrics")
    public PoolAlarmMetrics poolAlarmMetrics(ObjectProvider<MeterRegistry> registries) {
        return new PoolAlarmMetrics(registries.getIfUnique());
    }
}
