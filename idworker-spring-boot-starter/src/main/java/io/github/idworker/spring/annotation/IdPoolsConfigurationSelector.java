package io.github.idworker.spring.annotation;

import org.springframework.core.annotation.AnnotationAttributes;

/**
 * Picks the configurations of {@link EnableIdPools}: the pools' own, and the alarm counter's, which skips itself
 * unless Micrometer is present. An application without spring-data-redis never loads the pools' configuration
 * and fails instead with a message naming the starter to add, and one without Micrometer never loads a
 * Micrometer type.
 */
public class IdPoolsConfigurationSelector extends EnableSelector {

    static final String POOLS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdPoolsConfig";
    static final String METRICS_CONFIG = "io.github.idworker.spring.boot.autoconfigure.IdPoolsMetricsConfig";

    public IdPoolsConfigurationSelector() {
        super(EnableIdPools.class);
    }

    @Override
    String[] select(AnnotationAttributes attributes) {
        requireRedis("@EnableIdPools", "the pools live in Redis; ");
        return new String[] {POOLS_CONFIG, METRICS_CONFIG};
    }
}
