package io.github.idworker.spring.annotation;

import io.github.idworker.IdWorkerConfigurationException;
import java.lang.annotation.Annotation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * The shape every {@code @Enable…} selector of idworker shares: it reads its annotation's attributes and names
 * the configurations to import as strings, so an absent optional jar never breaks class loading, and a mode
 * whose library is missing fails with {@link IdWorkerConfigurationException} naming what to add. Deferred, so
 * that the application's own bean definitions are registered before the imported configurations'
 * {@code @ConditionalOnMissingBean} checks run.
 */
abstract class EnableSelector implements DeferredImportSelector, BeanClassLoaderAware {

    static final String REDIS_CONNECTION_FACTORY = "org.springframework.data.redis.connection.RedisConnectionFactory";

    private final Class<? extends Annotation> annotation;
    private @Nullable ClassLoader beanClassLoader = ClassUtils.getDefaultClassLoader();

    EnableSelector(Class<? extends Annotation> annotation) {
        this.annotation = annotation;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public final String[] selectImports(AnnotationMetadata importingClassMetadata) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClassMetadata.getAnnotationAttributes(this.annotation.getName(), false));
        if (attributes == null) {
            throw new IllegalStateException("@" + this.annotation.getSimpleName() + " is not present on "
                    + importingClassMetadata.getClassName());
        }
        return select(attributes);
    }

    /** The configuration classes, by name, for the annotation's attributes. */
    abstract String[] select(AnnotationAttributes attributes);

    /**
     * Fails naming {@code what} (the annotation and its mode), the missing class and what to add, unless
     * {@code className} is on the application's class path.
     */
    final void requireClass(String className, String what, String library, String toAdd) {
        if (!ClassUtils.isPresent(className, this.beanClassLoader)) {
            throw new IdWorkerConfigurationException(what, "needs " + library + " on the class path (" + className
                    + " is missing); " + toAdd);
        }
    }

    /** {@link #requireClass} for spring-data-redis, which every Redis-backed mode needs. */
    final void requireRedis(String what, String why) {
        requireClass(REDIS_CONNECTION_FACTORY, what, "spring-data-redis", why
                + "add spring-boot-starter-data-redis to the application's dependencies");
    }
}
