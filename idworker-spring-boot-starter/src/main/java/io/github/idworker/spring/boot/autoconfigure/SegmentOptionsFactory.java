package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.redis.RedisSegmentOptions;

/**
 * Turns {@link SegmentProperties} into validated generator options; an invalid value raises
 * {@link io.github.idworker.IdWorkerConfigurationException} naming its {@code idworker.segment.*} property.
 */
final class SegmentOptionsFactory {

    private SegmentOptionsFactory() {
    }

    /** Options of the in-process generators. */
    static SegmentGeneratorOptions inProcess(SegmentProperties segment) {
        return SegmentGeneratorOptions.builder()
                .minStep(segment.getMinStep())
                .maxStep(segment.getMaxStep())
                .initialStep((segment.getInitialStep() != null) ? segment.getInitialStep() : 0)
                .prefetchThreshold(segment.getPrefetchThreshold())
                .targetLifetime(segment.getTargetLifetime())
                .maxWait(segment.getMaxWait())
                .minLoadLifetime(segment.getMinLoadLifetime())
                .maxStepsPerLoad(segment.getMaxStepsPerLoad())
                .build();
    }

    /** Options of the Redis sequences; keys share {@code idworker.redis.key-prefix} with the Redis centre. */
    static RedisSegmentOptions redis(IdWorkerProperties properties) {
        SegmentRedisProperties redis = properties.getSegment().getRedis();
        return RedisSegmentOptions.builder()
                .keyPrefix(properties.getRedis().getKeyPrefix())
                .step(redis.getStep())
                .maxBatch(redis.getMaxBatch())
                .lockTtl(redis.getLockTtl())
                .maxWait(redis.getMaxWait())
                .checkRunId(redis.isCheckRunId())
                .coalesce(redis.isCoalesce())
                .maxInFlight(redis.getMaxInFlight())
                .prefetchThreshold(redis.getPrefetchThreshold())
                .build();
    }
}
