package io.github.idworker.spring.annotation;

import org.springframework.core.annotation.AnnotationAttributes;

/**
 * Picks the configurations for {@link EnableSegmentIdGenerators}: the in-process one always, the Redis one when
 * {@link EnableSegmentIdGenerators#redisSequences()} asks for it. An application without spring-data-redis never
 * loads the Redis configuration, and asking for Redis sequences without it fails naming the starter to add.
 */
public class SegmentIdGeneratorsConfigurationSelector extends EnableSelector {

    static final String SEGMENT_CONFIG = "io.github.idworker.spring.boot.autoconfigure.SegmentIdGeneratorsConfig";
    static final String REDIS_SEQUENCE_CONFIG =
            "io.github.idworker.spring.boot.autoconfigure.RedisSequenceGeneratorsConfig";

    public SegmentIdGeneratorsConfigurationSelector() {
        super(EnableSegmentIdGenerators.class);
    }

    @Override
    String[] select(AnnotationAttributes attributes) {
        if (!attributes.getBoolean("redisSequences")) {
            return new String[] {SEGMENT_CONFIG};
        }
        requireRedis("@EnableSegmentIdGenerators(redisSequences = true)", "");
        return new String[] {SEGMENT_CONFIG, REDIS_SEQUENCE_CONFIG};
    }
}
