package io.github.idworker.segment.redis;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.redis.RedisRefillOptions;

import java.time.Duration;

/**
 * Validated settings of a {@link RedisSegmentIdGenerator}. Every setting has a default; {@link Builder#build()}
 * rejects values outside what the generator can run with, naming the property and its allowed range.
 */
public final class RedisSegmentOptions extends RedisRefillOptions {

    /** The property of {@link #lockTtl()}. */
    public static final String LOCK_TTL_PROPERTY = "idworker.segment.redis.lock-ttl";
    /** The property of {@link #maxWait()}. */
    public static final String MAX_WAIT_PROPERTY = "idworker.segment.redis.max-wait";
    /** Default size of a range taken from the database. */
    public static final int DEFAULT_STEP = 1_000;
    /** Default largest {@code nextIds} batch. */
    public static final int DEFAULT_MAX_BATCH = 100_000;
    /** Default life of an unreleased refill lock. */
    public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(10);
    /** Default bound on a caller's wait for a refill. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(3);
    /** Default share of the step used from the current range when a range is installed ahead of it. */
    public static final double DEFAULT_PREFETCH_THRESHOLD = 0.2;
    /** Default bound on the Redis calls one coalescing generator has in flight. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 2;

    private static final DurationProperty LOCK_TTL =
            new DurationProperty(LOCK_TTL_PROPERTY, DEFAULT_LOCK_TTL, Duration.ofMillis(100), null);
    /** Any positive wait; the generator counts it in nanoseconds. */
    private static final DurationProperty MAX_WAIT =
            new DurationProperty(MAX_WAIT_PROPERTY, DEFAULT_MAX_WAIT, Duration.ofNanos(1), null);

    private final int step;
    private final int maxBatch;
    private final boolean checkRunId;
    private final boolean coalesce;
    private final int maxInFlight;
    private final double prefetchThreshold;

    private RedisSegmentOptions(Builder b) {
        super(b);
        this.step = b.step;
        this.maxBatch = b.maxBatch;
        this.checkRunId = b.checkRunId;
        this.coalesce = b.coalesce;
        this.maxInFlight = b.maxInFlight;
        this.prefetchThreshold = b.prefetchThreshold;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options with every default. */
    public static RedisSegmentOptions defaults() {
        return builder().build();
    }

    public int step() {
        return step;
    }

    public int maxBatch() {
        return maxBatch;
    }

    public boolean checkRunId() {
        return checkRunId;
    }

    /** Most Redis calls one coalescing generator has in flight at once (see {@link Builder#maxInFlight}). */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** Whether concurrent calls of one generator share one Redis call (see {@link Builder#coalesce}). */
    public boolean coalesce() {
        return coalesce;
    }

    /** Share of the step used from the current range when a range is installed ahead; 1 installs none ahead. */
    public double prefetchThreshold() {
        return prefetchThreshold;
    }

    /**
     * Collects settings; {@link #build()} validates them. {@code lockTtl} is {@code idworker.segment.redis.lock-ttl}
     * (at least 100ms, and longer than a database allocation takes); {@code maxWait} is
     * {@code idworker.segment.redis.max-wait} (positive), the longest a call waits for a refill.
     */
    public static final class Builder extends RedisRefillOptions.Builder<RedisSegmentOptions, Builder> {
        private int step = DEFAULT_STEP;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private boolean checkRunId = true;
        private boolean coalesce = true;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private double prefetchThreshold = DEFAULT_PREFETCH_THRESHOLD;

        private Builder() {
            super(LOCK_TTL, MAX_WAIT);
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
         * Whether every call refuses a range installed by another Redis process ({@code idworker.segment.redis.check-run-id},
         * default on). A restart that restores an older RDB snapshot or an AOF missing its last second, a failover
         * to a replica that lagged, or a fail-back to a demoted master that resynced, brings back a range whose
         * {@code v_l} went back; the check sees the changed identity ({@code run_id} and {@code master_replid}) and
         * refills above the database's {@code max_id} instead of reissuing numbers. It costs one
         * {@code INFO replication} inside the script, once per Redis call: with {@link #coalesce} on, once per
         * combined call rather than once per caller. Switch it
         * off only when Redis runs without persistence and without replicas (a restart then loses the range, which
         * is safe) or with {@code appendfsync always} and no failover.
         */
        public Builder checkRunId(boolean checkRunId) {
            this.checkRunId = checkRunId;
            return this;
        }

        /**
         * Whether concurrent calls of one generator are combined into one Redis call while {@link #maxInFlight} are in flight
         * ({@code idworker.segment.redis.coalesce}, default on). The combined call asks for the sum and hands the
         * numbers out in arrival order, so first come, first served holds as without it, and the identity check
         * runs on every combined call. Off, every call makes its own Redis call; throughput then stops growing with
         * callers once the Redis connections are busy.
         */
        public Builder coalesce(boolean coalesce) {
            this.coalesce = coalesce;
            return this;
        }

        /**
         * Most Redis calls of one coalescing generator in flight at once ({@code idworker.segment.redis.max-in-flight},
         * default 2, 1 to 64). Up to this many callers go straight to Redis; only further callers queue and are
         * combined into the next call that starts. With 1, a second caller always waits for the first call and its
         * hand-over (measured: two threads got about half of what two connections give); with 2, two callers never
         * queue. First come, first served holds for any value: a caller is only ever served by a Redis call that
         * starts after it began, so calls in flight at the same time serve callers that were concurrent.
         */
        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        /**
         * Share of the step used from the current range when a range is installed ahead of it
         * ({@code idworker.segment.redis.prefetch-threshold}, default 0.2, as for the in-process generator): the
         * first call that leaves fewer than {@code (1 - threshold) × step} numbers in the current range, with none
         * installed ahead, starts one background refill, so callers later switch to the next range inside the
         * script instead of waiting for the database. Early, because the refill must land before the current range
         * runs out, and on a busy host it takes tens of milliseconds (lock, database, install). What it costs: a
         * range ahead that is never used (Redis lost its data, a batch larger than the range) is a gap. Above 0, at
         * most 1; 1 installs no range ahead (every range change waits for a synchronous refill).
         */
        public Builder prefetchThreshold(double prefetchThreshold) {
            this.prefetchThreshold = prefetchThreshold;
            return this;
        }

        @Override
        protected RedisSegmentOptions buildChecked() {
            if (step < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.step", "must be at least 1, was " + step);
            }
            if (maxBatch < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.max-batch",
                        "must be at least 1, was " + maxBatch);
            }
            if (maxInFlight < 1 || maxInFlight > 64) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.max-in-flight",
                        "must lie between 1 and 64, was " + maxInFlight);
            }
            if (!(prefetchThreshold > 0 && prefetchThreshold <= 1)) {
                throw new IdWorkerConfigurationException("idworker.segment.redis.prefetch-threshold",
                        "must lie above 0 and at most 1, was " + prefetchThreshold);
            }
            return new RedisSegmentOptions(this);
        }

        @Override
        protected Builder self() {
            return this;
        }
    }

    @Override
    public String toString() {
        return "RedisSegmentOptions[keyPrefix=" + keyPrefix() + ", step=" + step + ", maxBatch=" + maxBatch
                + ", lockTtl=" + lockTtl() + ", maxWait=" + maxWait() + ", checkRunId=" + checkRunId + ", coalesce="
                + coalesce + ", maxInFlight=" + maxInFlight + ", prefetchThreshold=" + prefetchThreshold + "]";
    }
}
