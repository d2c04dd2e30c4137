package io.github.idworker.spring.annotation;

import org.springframework.core.annotation.AnnotationAttributes;

/**
 * Picks the configurations for {@link EnableSerialNumbers#mode()}: the rule table's always, plus the Redis one
 * ({@link SerialMode#STRICT}) or the in-process one ({@link SerialMode#LOCAL}). An application without
 * spring-data-redis never loads the Redis configuration, and {@link SerialMode#STRICT} without it fails with a
 * message naming the starter to add.
 */
public class SerialNumbersConfigurationSelector extends EnableSelector {

    static final String STORE_CONFIG = "io.github.idworker.spring.boot.autoconfigure.SerialStoreConfig";
    static final String REDIS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.RedisSerialNumbersConfig";
    static final String LOCAL_CONFIG = "io.github.idworker.spring.boot.autoconfigure.LocalSerialNumbersConfig";

    public SerialNumbersConfigurationSelector() {
        super(EnableSerialNumbers.class);
    }

    @Override
    String[] select(AnnotationAttributes attributes) {
        SerialMode mode = attributes.getEnum("mode");
        return switch (mode) {
            case STRICT -> {
                requireRedis("@EnableSerialNumbers(mode = SerialMode.STRICT)", "use SerialMode.LOCAL for serials "
                        + "kept in the database only, or ");
                yield new String[] {STORE_CONFIG, REDIS_CONFIG};
            }
            case LOCAL -> new String[] {STORE_CONFIG, LOCAL_CONFIG};
        };
    }
}
