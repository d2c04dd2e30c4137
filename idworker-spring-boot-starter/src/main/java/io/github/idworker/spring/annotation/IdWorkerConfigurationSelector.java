package io.github.idworker.spring.annotation;

import io.github.idworker.IdWorkerConfigurationException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Picks the configuration for {@link EnableIdWorker#mode()}, plus the worker health indicator's. It names the
 * configuration classes as strings, so an absent optional jar (spring-jdbc, spring-data-redis,
 * idworker-zookeeper and Curator, spring-boot-health) never breaks class loading. It is
 * deferred so that the application's own bean definitions are registered before the
 * {@code @ConditionalOnMissingBean} checks of the imported configuration run.
 */
public class IdWorkerConfigurationSelector implements DeferredImportSelector, BeanClassLoaderAware {

    static final String DB_CONFIG = "io.github.idworker.spring.boot.autoconfigure.DBIdWorkerConfig";
    static final String REDIS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.RedisIdWorkerConfig";
    /** Imported with either mode; it skips itself unless spring-boot-health is present and the indicator enabled. */
    static final String HEALTH_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdWorkerHealthConfig";
    static final String ZOOKEEPER_CONFIG = "io.github.idworker.spring.boot.autoconfigure.ZookeeperIdWorkerConfig";
    static final String REDIS_CONNECTION_FACTORY = "org.springframework.data.redis.connection.RedisConnectionFactory";
    static final String CURATOR_FRAMEWORK = "org.apache.curator.framework.CuratorFramework";
    static final String ZOOKEEPER_SEQUENCE_MANAGER = "io.github.idworker.lease.zookeeper.ZookeeperSequenceManager";

    private ClassLoader beanClassLoader = ClassUtils.getDefaultClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public String[] selectImports(AnnotationMetadata importingClassMetadata) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClassMetadata.getAnnotationAttributes(EnableIdWorker.class.getName(), false));
        if (attributes == null) {
            throw new IllegalStateException("@EnableIdWorker is not present on "
                    + importingClassMetadata.getClassName());
        }
        CenterMode mode = attributes.getEnum("mode");
        return switch (mode) {
            case DB -> new String[] {DB_CONFIG, HEALTH_CONFIG};
            case REDIS -> {
                requireClass(REDIS_CONNECTION_FACTORY, "CenterMode.REDIS", "spring-data-redis",
                        "spring-boot-starter-data-redis");
                yield new String[] {REDIS_CONFIG, HEALTH_CONFIG};
            }
            case ZOOKEEPER -> {
                requireClass(ZOOKEEPER_SEQUENCE_MANAGER, "CenterMode.ZOOKEEPER", "idworker-zookeeper",
                        "io.github.idworker:idworker-zookeeper");
                requireClass(CURATOR_FRAMEWORK, "CenterMode.ZOOKEEPER", "Apache Curator (curator-framework)",
                        "io.github.idworker:idworker-zookeeper, which brings it,");
                yield new String[] {ZOOKEEPER_CONFIG, HEALTH_CONFIG};
            }
        };
    }

    private void requireClass(String className, String mode, String library, String starter) {
        if (!ClassUtils.isPresent(className, this.beanClassLoader)) {
            throw new IdWorkerConfigurationException("@EnableIdWorker(mode = " + mode + ")", "needs " + library
                    + " on the class path (" + className + " is missing); add " + starter
                    + " to the application's dependencies");
        }
    }
}
