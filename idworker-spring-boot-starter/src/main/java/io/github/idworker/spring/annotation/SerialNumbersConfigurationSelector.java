package io.github.idworker.spring.annotation;

import io.github.idworker.IdWorkerConfigurationException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Picks the configurations for {@link EnableSerialNumbers#mode()}: the rule table's always, plus the Redis one
 * ({@link SerialMode#STRICT}) or the in-process one ({@link SerialMode#LOCAL}). Classes are named as strings, so
 * an application without spring-data-redis never loads the Redis configuration, and {@link SerialMode#STRICT}
 * without it fails with a message naming the starter to add. Deferred, so that the application's own beans are
 * registered before the {@code @ConditionalOnMissingBean} checks run.
 */
public class SerialNumbersConfigurationSelector implements DeferredImportSelector, BeanClassLoaderAware {

    static final String STORE_CONFIG = "io.github.idworker.spring.boot.autoconfigure.SerialStoreConfig";
    static final String REDIS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.RedisSerialNumbersConfig";
    static final String LOCAL_CONFIG = "io.github.idworker.spring.boot.autoconfigure.LocalSerialNumbersConfig";

    private ClassLoader beanClassLoader = ClassUtils.getDefaultClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public String[] selectImports(AnnotationMetadata importingClassMetadata) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClassMetadata.getAnnotationAttributes(EnableSerialNumbers.class.getName(), false));
        if (attributes == null) {
            throw new IllegalStateException("@EnableSerialNumbers is not present on "
                    + importingClassMetadata.getClassName());
        }
        SerialMode mode = attributes.getEnum("mode");
        return switch (mode) {
            case STRICT -> {
                if (!ClassUtils.isPresent(IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY, this.beanClassLoader)) {
                    throw new IdWorkerConfigurationException("@EnableSerialNumbers(mode = SerialMode.STRICT)",
                            "needs spring-data-redis on the class path ("
                                    + IdWorkerConfigurationSelector.REDIS_CONNECTION_FACTORY + " is missing); add "
                                    + "spring-boot-starter-data-redis to the application's dependencies, or use "
                                    + "SerialMode.LOCAL for serials kept in the database only");
                }
                yield new String[] {STORE_CONFIG, REDIS_CONFIG};
            }
            case LOCAL -> new String[] {STORE_CONFIG, LOCAL_CONFIG};
        };
    }
}
