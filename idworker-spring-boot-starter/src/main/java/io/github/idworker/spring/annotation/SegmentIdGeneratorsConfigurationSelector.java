package io.github.idworker.spring.annotation;

import io.github.idworker.IdWorkerConfigurationException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Picks the configurations for {@link EnableSegmentIdGenerators}: the in-process one always, the Redis one when
 * {@link EnableSegmentIdGenerators#redisSequences()} asks for it. Classes are named as strings, so an application
 * without spring-data-redis never loads the Redis configuration; deferred, so that the application's own beans
 * are registered before the {@code @ConditionalOnMissingBean} checks run.
 */
public class SegmentIdGeneratorsConfigurationSelector implements DeferredImportSelector, BeanClassLoaderAware {

    static final String SEGMENT_CONFIG = "io.github.idworker.spring.boot.autoconfigure.SegmentIdGeneratorsConfig";
    static final String REDIS_SEQUENCE_CONFIG =
            "io.github.idworker.spring.boot.autoconfigure.RedisSequenceGeneratorsConfig";

    private ClassLoader beanClassLoader = ClassUtils.getDefaultClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public String[] selectImports(AnnotationMetadata importingClassMetadata) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClassMetadata.getAnnotationAttributes(EnableSegmentIdGenerators.class.getName(), false));
        if (attributes == null) {
            throw new IllegalStateException("@EnableSegmentIdGenerators is not present on "
                    + importingClassMetadata.getClassName());
        }
        if (!attributes.getBoolean("redisSequences")) {
            return new String[] {SEGMENT_CONFIG};
        }
        if (!ClassUtils.isPresent(IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY, this.beanClassLoader)) {
            throw new IdWorkerConfigurationException("@EnableSegmentIdGenerators(redisSequences = true)",
                    "needs spring-data-redis on the class path (" + IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY
                            + " is missing); add spring-boot-starter-data-redis to the application's dependencies");
        }
        return new String[] {SEGMENT_CONFIG, REDIS_SEQUENCE_CONFIG};
    }
}
