package io.github.idworker.spring.annotation;

import io.github.idworker.IdWorkerConfigurationException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Picks the configurations of {@link EnableIdPools}: the pools' own, and the alarm counter's, which skips itself
 * unless Micrometer is present. Classes are named as strings, so an application without spring-data-redis never
 * loads the pools' configuration and fails instead with a message naming the starter to add, and one without
 * Micrometer never loads a Micrometer type. Deferred, so that the application's own beans are registered before
 * the {@code @ConditionalOnMissingBean} checks run.
 */
public class IdPoolsConfigurationSelector implements DeferredImportSelector, BeanClassLoaderAware {

    static final String POOLS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdPoolsConfig";
    static final String METRICS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdPoolsMetricsConfig";

    private ClassLoader beanClassLoader = ClassUtils.getDefaultClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public String[] selectImports(AnnotationMetadata importingClassMetadata) {
        if (!ClassUtils.isPresent(IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY, this.beanClassLoader)) {
            throw new IdWorkerConfigurationException("@EnableIdPools", "needs spring-data-redis on the class path ("
                    + IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY + " is missing), since the pools live "
                    + "in Redis; add spring-boot-starter-data-redis to the application's dependencies");
        }
        return new String[] {POOLS_CONFIG, METRICS_CONFIG};
    }
}
