package io.github.idworker.pool.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.redis.RedisRefillOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Validated settings of {@link RedisIdPools}. Every setting has a default; {@link Builder#build()} rejects values
 * the pools cannot run with, naming the property and its allowed range.
 */
public final class RedisPoolOptions extends RedisRefillOptions {

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

    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);
    private static final DurationProperty LOCK_TTL =
            new DurationProperty(LOCK_TTL_PROPERTY, DEFAULT_LOCK_TTL, Duration.ofMillis(100), TEN_MINUTES);
    private static final DurationProperty MAX_WAIT =
            new DurationProperty(MAX_WAIT_PROPERTY, DEFAULT_MAX_WAIT, Duration.ofMillis(1), TEN_MINUTES);
    private static final DurationProperty SCAN_INTERVAL = new DurationProperty(SCAN_INTERVAL_PROPERTY,
            DEFAULT_SCAN_INTERVAL, Duration.ofMillis(10), Duration.ofHours(1));

    private final PoolEnvironment environment;
    private final Duration scanInterval;
    private final int maxRefill;
    private final List<PoolAlarmListener> alarmListeners;

    private RedisPoolOptions(Builder b) {
        super(b);
        this.environment = b.environment;
        this.scanInterval = b.scanInterval;
        this.maxRefill = b.maxRefill;
        this.alarmListeners = List.copyOf(b.alarmListeners);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static RedisPoolOptions defaults() {
        return builder().build();
    }

    public PoolEnvironment environment() {
        return environment;
    }

    public Duration scanInterval() {
        return scanInterval;
    }

    public int maxRefill() {
        return maxRefill;
    }

    public List<PoolAlarmListener> alarmListeners() {
        return alarmListeners;
    }

    /**
     * Collects settings; {@link #build()} validates them. {@code lockTtl} is {@code idworker.pool.lock-ttl} (100ms
     * to 10m); {@code maxWait} is {@code idworker.pool.max-wait} (1ms to 10m): the longest one take waits in all,
     * whatever the Redis client's socket timeout and retries, for Redis's answer and, on an entity's first take on
     * this node, for the check against its table; then {@link io.github.idworker.pool.PoolTimeoutException}.
     */
    public static final class Builder extends RedisRefillOptions.Builder<RedisPoolOptions, Builder> {
        private PoolEnvironment environment = PoolEnvironment.SINGLE;
        private Duration scanInterval = DEFAULT_SCAN_INTERVAL;
        private int maxRefill = DEFAULT_MAX_REFILL;
        private final List<PoolAlarmListener> alarmListeners = new ArrayList<>();

        private Builder() {
            super(LOCK_TTL, MAX_WAIT);
        }

        /** This deployment's share of the ID space ({@code idworker.pool.environment} of {@code environments}). */
        public Builder environment(PoolEnvironment environment) {
            this.environment = environment;
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

        /** Hears every alarm, besides the WARN log line. */
        public Builder alarmListener(PoolAlarmListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            this.alarmListeners.add(listener);
            return this;
        }

        @Override
        protected RedisPoolOptions buildChecked() {
            if (environment == null) {
                throw new IdWorkerConfigurationException(PoolEnvironment.ENVIRONMENT_PROPERTY, "must be set");
            }
            SCAN_INTERVAL.check(scanInterval);
            if (maxRefill < 1 || maxRefill > 10_000_000) {
                throw new IdWorkerConfigurationException(MAX_REFILL_PROPERTY, "must be from 1 to 10000000, was "
                        + maxRefill);
            }
            return new RedisPoolOptions(this);
        }

        @Override
        protected Builder self() {
            return this;
        }
    }
}
