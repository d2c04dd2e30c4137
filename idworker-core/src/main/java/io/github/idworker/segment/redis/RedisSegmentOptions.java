package io.github.idworker.segment.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.redis.RedisKeyPrefix;

import java.time.Duration;

/**
 * Validated settings of a {@link RedisSegmentIdGenerator}. Every setting has a default; {@link Builder#build()}
 * rejects values outside what the generator can run with, naming the property.
 */
public final class RedisSegmentOptions {

    /** Default key prefix, shared with the Redis lease centre. */
    public static final String DEFAULT_KEY_PREFIX = "idworker";
    /** Default size of a range taken from the database. */
    public static final int DEFAULT_STEP = 1_000;
    /** Default largest {@code nextIds} batch. */
    public static final int DEFAULT_MAX_BATCH = 100_000;
    /** Default life of an unreleased refill lock. */
    public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(10);
    /** Default bound on a caller's wait for a refill. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(3);

    private final String keyPrefix;
    private final int step;
    private final int maxBatch;
    private final Duration lockTtl;
    private final Duration maxWait;
    private final boolean checkRunId;

    private RedisSegmentOptions(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.step = b.step;
        this.maxBatch = b.maxBatch;
        this.lockTtl = b.lockTtl;
        this.maxWait = b.maxWait;
        this.checkRunId = b.checkRunId;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options with every default. */
    public static RedisSegmentOptions defaults() {
        return builder().build();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public int step() {
        return step;
    }

    public int maxBatch() {
        return maxBatch;
    }

    public Duration lockTtl() {
        return lockTtl;
    }

    public Duration maxWait() {
        return maxWait;
    }

    public boolean checkRunId() {
        return checkRunId;
    }

    /** Collects settings; {@link #build()} validates them. */
    public static final class Builder {
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private int step = DEFAULT_STEP;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private Duration lockTtl = DEFAULT_LOCK_TTL;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private boolean checkRunId = true;

        private Builder() {
        }

        /** First part of every key's hash tag ({@code idworker.redis.key-prefix}); no braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Numbers taken from the database per refill ({@code idworker.segment.redis.step}); a batch larger than
         * the step takes a range of its own size.
         */
        public Builder step(int step) {
            this.step = step;
            return this;
        }

        /** Largest {@code nextIds(count)} ({@code idworker.segment.redis.max-batch}). */
        public Builder maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        /**
         * How long a refill lock lives when its owner dies before releasing it ({@code idworker.segment.redis.lock-ttl});
         * longer than a database allocation takes.
         */
        public Builder lockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
            return this;
        }

        /** Longest a call waits for a refill ({@code idworker.segment.redis.max-wait}). */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /**
         * Whether every call refuses a range installed by another Redis process ({@code idworker.segment.redis.check-run-id},
         * default on). A restart that restores an older RDB snapshot or an AOF missing its last second, a failover
         * to a replica that lagged, or a fail-back to a demoted master that resynced, brings back a range whose
         * {@code v_l} went back; the check sees the changed identity ({@code run_id} and {@code master_replid}) and
         * refills above the database's {@code max_id} instead of reissuing numbers. It costs {@code INFO server} and
         * {@code INFO replication} inside the script (one call on Redis 7), roughly halving the calls one Redis node
         * serves per second. Switch it
         * off only when Redis runs without persistence and without replicas (a restart then loses the range, which
         * is safe) or with {@code appendfsync always} and no failover.
         */
        public Builder checkRunId(boolean checkRunId) {
            this.checkRunId = checkRunId;
            return this;
        }

        public RedisSegmentOptions build() {
            RedisKeyPrefix.check(keyPrefix);
            if (step < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.step", "must be at least 1, was " + step);
            }
            if (maxBatch < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.max-batch",
                        "must be at least 1, was " + maxBatch);
            }
            if (lockTtl == null || lockTtl.toMillis() < 100) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.lock-ttl",
                        "must be at least 100ms, was " + lockTtl);
            }
            if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.max-wait",
                        "must be a positive duration, was " + maxWait);
            }
            return new RedisSegmentOptions(this);
        }
    }

    @Override
    public String toString() {
        return "RedisSegmentOptions[keyPrefix=" + keyPrefix + ", step=" + step + ", maxBatch=" + maxBatch
                + ", lockTtl=" + lockTtl + ", maxWait=" + maxWait + ", checkRunId=" + checkRunId + "]";
    }
}
