package io.github.idworker.serial.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.redis.RedisKeyPrefix;
import io.github.idworker.snowflake.MillisClock;

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Validated settings of {@link RedisSerialNumbers}. Every setting has a default; {@link Builder#build()} rejects
 * values it cannot run with, naming the property.
 */
public final class RedisSerialOptions {

    public static final String DEFAULT_KEY_PREFIX = "idworker";
    /** The property bounding a caller's wait for a refill. */
    public static final String MAX_WAIT_PROPERTY = "idworker.serial.redis.max-wait";
    /** Default life of an unreleased refill lock. */
    public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(10);
    /** Default bound on a caller's wait when the stock is empty. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(3);
    /** Default demand a refill covers: a refill holds what the last half hour's pace uses in this time. */
    public static final Duration DEFAULT_REFILL_COVER = Duration.ofMinutes(5);

    private final String keyPrefix;
    private final Duration lockTtl;
    private final Duration maxWait;
    private final Duration refillCover;
    private final boolean checkRunId;
    private final MillisClock clock;
    private final Executor refillExecutor;

    private RedisSerialOptions(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.lockTtl = b.lockTtl;
        this.maxWait = b.maxWait;
        this.refillCover = b.refillCover;
        this.checkRunId = b.checkRunId;
        this.clock = b.clock;
        this.refillExecutor = b.refillExecutor;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static RedisSerialOptions defaults() {
        return builder().build();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public Duration lockTtl() {
        return lockTtl;
    }

    public Duration maxWait() {
        return maxWait;
    }

    public Duration refillCover() {
        return refillCover;
    }

    public boolean checkRunId() {
        return checkRunId;
    }

    /** The wall clock that gives the hand-out date and the demand buckets. */
    public MillisClock clock() {
        return clock;
    }

    /** Runs background refills; null for the generator's own daemon thread. */
    public Executor refillExecutor() {
        return refillExecutor;
    }

    /** Collects settings; {@link #build()} validates them. */
    public static final class Builder {
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration lockTtl = DEFAULT_LOCK_TTL;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration refillCover = DEFAULT_REFILL_COVER;
        private boolean checkRunId = true;
        private MillisClock clock = MillisClock.SYSTEM;
        private Executor refillExecutor;

        private Builder() {
        }

        /** First part of every key's hash tag ({@code idworker.redis.key-prefix}); no braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** How long a refill lock lives when its owner dies holding it ({@code idworker.serial.redis.lock-ttl}). */
        public Builder lockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
            return this;
        }

        /** Longest a call waits for a refill when the stock is empty ({@code idworker.serial.redis.max-wait}). */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /**
         * How much time of measured demand one refill holds ({@code idworker.serial.redis.refill-cover}), within
         * the rule's min-batch and max-batch.
         */
        public Builder refillCover(Duration refillCover) {
            this.refillCover = refillCover;
            return this;
        }

        /**
         * Whether every take refuses a stock installed by another Redis process
         * ({@code idworker.serial.redis.check-run-id}, default on): a restart from an older snapshot or a failover
         * to a lagging replica brings back numbers already handed out, and the check refills above the database's
         * high-water instead. Switch it off only for Redis without persistence and without replicas.
         */
        public Builder checkRunId(boolean checkRunId) {
            this.checkRunId = checkRunId;
            return this;
        }

        public Builder clock(MillisClock clock) {
            this.clock = clock;
            return this;
        }

        public Builder refillExecutor(Executor refillExecutor) {
            this.refillExecutor = refillExecutor;
            return this;
        }

        public RedisSerialOptions build() {
            RedisKeyPrefix.check(keyPrefix);
            positive("idworker.serial.redis.lock-ttl", lockTtl);
            positive(MAX_WAIT_PROPERTY, maxWait);
            positive("idworker.serial.redis.refill-cover", refillCover);
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            return new RedisSerialOptions(this);
        }

        private static void positive(String property, Duration value) {
            if (value == null || value.toMillis() < 1) {
                throw new IdWorkerConfigurationException(property, "must be at least 1ms, was " + value);
            }
        }
    }

    @Override
    public String toString() {
        return "RedisSerialOptions[keyPrefix=" + keyPrefix + ", lockTtl=" + lockTtl + ", maxWait=" + maxWait
                + ", refillCover=" + refillCover + ", checkRunId=" + checkRunId + "]";
    }
}
