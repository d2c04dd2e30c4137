package io.github.idworker.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.serial.redis.RedisSerialOptions;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The three Redis stores' options share one builder: the same defaults as before, setters that chain into each
 * store's own, and refusals that name the store's property, its range and the value.
 */
class RedisRefillOptionsTest {

    @Test
    void defaultsAreEachStoresOwn() {
        assertThat(RedisSerialOptions.defaults().lockTtl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(RedisSerialOptions.defaults().maxWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(RedisSegmentOptions.defaults().lockTtl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(RedisSegmentOptions.defaults().maxWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(RedisPoolOptions.defaults().lockTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(RedisPoolOptions.defaults().maxWait()).isEqualTo(Duration.ofSeconds(1));
        assertThat(RedisPoolOptions.defaults().keyPrefix()).isEqualTo(RedisRefillOptions.DEFAULT_KEY_PREFIX);
    }

    @Test
    void sharedSettersChainIntoTheStoresOwn() {
        RedisSerialOptions serial = RedisSerialOptions.builder().keyPrefix("app").lockTtl(Duration.ofSeconds(2))
                .refillCover(Duration.ofSeconds(90)).maxWait(Duration.ofMillis(400)).build();
        assertThat(serial.keyPrefix()).isEqualTo("app");
        assertThat(serial.lockTtl()).isEqualTo(Duration.ofSeconds(2));
        assertThat(serial.maxWait()).isEqualTo(Duration.ofMillis(400));
        assertThat(serial.refillCover()).isEqualTo(Duration.ofSeconds(90));
        assertThat(RedisSegmentOptions.builder().maxWait(Duration.ofNanos(1)).step(7).build().step()).isEqualTo(7);
    }

    @Test
    void refusalsNameThePropertyTheRangeAndTheValue() {
        refused(() -> RedisSerialOptions.builder().lockTtl(Duration.ZERO).build(),
                "idworker.serial.redis.lock-ttl: must be at least 1ms, was 0ms");
        refused(() -> RedisSerialOptions.builder().refillCover(Duration.ofSeconds(-1)).build(),
                "idworker.serial.redis.refill-cover: must be at least 1ms, was -1s");
        refused(() -> RedisSegmentOptions.builder().lockTtl(Duration.ofMillis(50)).build(),
                "idworker.segment.redis.lock-ttl: must be at least 100ms, was 50ms");
        refused(() -> RedisSegmentOptions.builder().maxWait(Duration.ZERO).build(),
                "idworker.segment.redis.max-wait: must be at least 1ns, was 0ms");
        refused(() -> RedisPoolOptions.builder().lockTtl(Duration.ofMinutes(11)).build(),
                "idworker.pool.lock-ttl: must be from 100ms to 10m, was 11m");
        refused(() -> RedisPoolOptions.builder().maxWait(null).build(),
                "idworker.pool.max-wait: must be from 1ms to 10m, was null");
        refused(() -> RedisPoolOptions.builder().scanInterval(Duration.ofMillis(1500).multipliedBy(3600)).build(),
                "idworker.pool.scan-interval: must be from 10ms to 1h, was 90m");
        refused(() -> RedisSerialOptions.builder().keyPrefix("{x}").build(), RedisKeyPrefix.PROPERTY);
    }

    private static void refused(Runnable build, String message) {
        assertThatThrownBy(build::run).isInstanceOf(IdWorkerConfigurationException.class).hasMessageStartingWith(message);
    }
}
