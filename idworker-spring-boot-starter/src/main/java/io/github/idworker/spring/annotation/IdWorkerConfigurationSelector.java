package io.github.idworker.spring.annotation;

import org.springframework.core.annotation.AnnotationAttributes;

/**
 * Picks the configuration for {@link EnableIdWorker#mode()}, plus the named generators', the worker health indicator's and the check of the
 * application's {@code ISequenceManager} bean names. It names the
 * configuration classes as strings, so an absent optional jar (spring-jdbc, spring-data-redis,
 * idworker-zookeeper and Curator, spring-boot-health) never breaks class loading, and a mode whose library is
 * missing fails naming what to add.
 */
public class IdWorkerConfigurationSelector extends EnableSelector {

    static final String DB_CONFIG = "io.github.idworker.spring.boot.autoconfigure.DBIdWorkerConfig";
    static final String REDIS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.RedisIdWorkerConfig";
    /** Imported with either mode; it skips itself unless spring-boot-health is present and the indicator enabled. */
    static final String HEALTH_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdWorkerHealthConfig";
    /** Imported with every mode: fails the startup when an ISequenceManager bean carries a name the worker ignores. */
    static final String NAME_CHECK = "io.github.idworker.spring.boot.autoconfigure.SequenceManagerNameCheck";
    /** Imported with every mode: the named generators of idworker.generators, when any is configured. */
    static final String NAMED_GENERATORS = "io.github.idworker.spring.boot.autoconfigure.NamedGeneratorsConfig";
    static final String ZOOKEEPER_CONFIG = "io.github.idworker.spring.boot.autoconfigure.ZookeeperIdWorkerConfig";
    static final String CURATOR_FRAMEWORK = "org.apache.curator.framework.CuratorFramework";
    static final String ZOOKEEPER_SEQUENCE_MANAGER = "io.github.idworker.lease.zookeeper.ZookeeperSequenceManager";

    public IdWorkerConfigurationSelector() {
        super(EnableIdWorker.class);
    }

    @Override
    String[] select(AnnotationAttributes attributes) {
        CenterMode mode = attributes.getEnum("mode");
        return switch (mode) {
            case DB -> new String[] {DB_CONFIG, HEALTH_CONFIG, NAME_CHECK, NAMED_GENERATORS};
            case REDIS -> {
                requireRedis("@EnableIdWorker(mode = CenterMode.REDIS)", "");
                yield new String[] {REDIS_CONFIG, HEALTH_CONFIG, NAME_CHECK, NAMED_GENERATORS};
            }
            case ZOOKEEPER -> {
                String what = "@EnableIdWorker(mode = CenterMode.ZOOKEEPER)";
                requireClass(ZOOKEEPER_SEQUENCE_MANAGER, what, "idworker-zookeeper",
                        "add io.github.idworker:idworker-zookeeper to the application's dependencies");
                requireClass(CURATOR_FRAMEWORK, what, "Apache Curator (curator-framework)",
                        "add io.github.idworker:idworker-zookeeper, which brings it, to the application's dependencies");
                yield new String[] {ZOOKEEPER_CONFIG, HEALTH_CONFIG, NAME_CHECK, NAMED_GENERATORS};
            }
        };
    }
}
