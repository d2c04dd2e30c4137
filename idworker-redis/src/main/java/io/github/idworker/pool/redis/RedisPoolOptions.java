package io.github.idworker.pool.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.redis.RedisKeyPrefix;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Validated settings of {@link RedisIdPools}. Every setting has a default; {@link Builder#build()} rejects values
 * the pools cannot run with, naming the property.
 */
public final class RedisPoolOptions {

    public static final String DEFAULT_KEY_PREFIX = "idworker";
    public static final String LOCK_TTL_PROPERTY = "idworker.pool.lock-ttl";
    public static final String SCAN_INTERVAL_PROPERTY = "idworker.pool.scan-interval";
    public static final String MAX_REFILL_PROPERTY = "idworker.pool.max-refill";
    public static final String MAX_WAIT_PROPERTY = "idworker.pool.max-wait";
    /** Default longest a take waits for Redis (and, on an entity's first take on this node, for its check). */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(1);
    /** Default life of a refill lock whose owner died holding it. */
    public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(30);
    /** Default pause between two reads of the whole pool table, which find entities operators inserted. */
    public static final Duration DEFAULT_SCAN_INTERVAL = Duration.ofSeconds(10);
    /** Default most IDs one refill reserves and appends. */
    public static final int DEFAULT_MAX_REFILL = 1_000_000;

    private final String keyPrefix;
    private final PoolEnvironment environment;
    private final Duration lockTtl;
    private final Duration scanInterval;
    private final int maxRefill;
    private final Duration maxWait;
    private final List<PoolAlarmListener> alarmListeners;

    private RedisPoolOptions(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.environment = b.environment;
        this.lockTtl = b.lockTtl;
        this.scanInterval = b.scanInterval;
        this.maxRefill = b.maxRefill;
        this.maxWait = b.maxWait;
        this.alarmListeners = List.copyOf(b.alarmListeners);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static RedisPoolOptions defaults() {
        return builder().build();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public PoolEnvironment environment() {
        return environment;
    }

    public Duration lockTtl() {
        return lockTtl;
    }

    public Duration scanInterval() {
        return scanInterval;
    }

    public int maxRefill() {
        return maxRefill;
    }

    /** Longest one take waits in all ({@code idworker.pool.max-wait}). */
    public Duration maxWait() {
        return maxWait;
    }

    public List<PoolAlarmListener> alarmListeners() {
        return alarmListeners;
    }

    /** Collects settings; {@link #build()} validates them. */
    public static final class Builder {
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private PoolEnvironment environment = PoolEnvironment.SINGLE;
        private Duration lockTtl = DEFAULT_LOCK_TTL;
        private Duration scanInterval = DEFAULT_SCAN_INTERVAL;
        private int maxRefill = DEFAULT_MAX_REFILL;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private final List<PoolAlarmListener> alarmListeners = new ArrayList<>();

        private Builder() {
        }

        /** First part of every key's hash tag ({@code idworker.redis.key-prefix}); no braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** This deployment's share of the ID space ({@code idworker.pool.environment} of {@code environments}). */
        public Builder environment(PoolEnvironment environment) {
            this.environment = environment;
            return this;
        }

        /** How long a refill lock lives when its owner dies holding it ({@code idworker.pool.lock-ttl}). */
        public Builder lockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
            return this;
        }

        /** How often the whole table is read for new and removed entities ({@code idworker.pool.scan-interval}). */
        public Builder scanInterval(Duration scanInterval) {
            this.scanInterval = scanInterval;
            return this;
        }

        /** Most IDs one refill reserves and appends ({@code idworker.pool.max-refill}); the next check adds more. */
        public Builder maxRefill(int maxRefill) {
            this.maxRefill = maxRefill;
            return this;
        }

        /**
         * Longest one take waits in all, whatever the Redis client's socket timeout and retries
         * ({@code idworker.pool.max-wait}): for Redis's answer, and on an entity's first take on this node for the
         * check against its table. Then {@link io.github.idworker.pool.PoolTimeoutException}.
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /** Hears every alarm, besides the WARN log line. */
        public Builder alarmListener(PoolAlarmListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            this.alarmListeners.add(listener);
            return this;
        }

        /** @throws IdWorkerConfigurationException naming the property of a value the pools cannot run with */
        public RedisPoolOptions build() {
            RedisKeyPrefix.check(keyPrefix);
            if (environment == null) {
                throw new IdWorkerConfigurationException(PoolEnvironment.ENVIRONMENT_PROPERTY, "must be set");
            }
            if (lockTtl == null || lockTtl.toMillis() < 100 || lockTtl.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IdWorkerConfigurationException(LOCK_TTL_PROPERTY, "must be from 100ms to 10m, was " + lockTtl);
            }
            if (scanInterval == null || scanInterval.toMillis() < 10 || scanInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IdWorkerConfigurationException(SCAN_INTERVAL_PROPERTY, "must be from 10ms to 1h, was "
                        + scanInterval);
            }
            if (maxRefill < 1 || maxRefill > 10_000_000) {
                throw new IdWorkerConfigurationException(MAX_REFILL_PROPERTY, "must be from 1 to 10000000, was "
                        + maxRefill);
            }
            if (maxWait == null || maxWait.toMillis() < 1 || maxWait.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IdWorkerConfigurationException(MAX_WAIT_PROPERTY, "must be from 1ms to 10m, was " + maxWait);
            }
            return new RedisPoolOptions(this);
        }
    }
}
