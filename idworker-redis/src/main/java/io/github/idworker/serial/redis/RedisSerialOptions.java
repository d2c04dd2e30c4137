package io.github.idworker.serial.redis;

import io.github.idworker.redis.RedisRefillOptions;
import io.github.idworker.snowflake.MillisClock;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Validated settings of {@link RedisSerialNumbers}. Every setting has a default; {@link Builder#build()} rejects
 * values it cannot run with, naming the property and its allowed range.
 */
public final class RedisSerialOptions extends RedisRefillOptions {

    /** The property bounding a caller's wait for a refill. */
    public static final String MAX_WAIT_PROPERTY = "idworker.serial.redis.max-wait";
    /** Default life of an unreleased refill lock. */
    public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(10);
    /** Default bound on a caller's wait when the stock is empty. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(3);
    /** Default demand a refill covers: a refill holds what the last half hour's pace uses in this time. */
    public static final Duration DEFAULT_REFILL_COVER = Duration.ofMinutes(5);

    private static final Duration ONE_MILLI = Duration.ofMillis(1);
    private static final DurationProperty LOCK_TTL =
            new DurationProperty("idworker.serial.redis.lock-ttl", DEFAULT_LOCK_TTL, ONE_MILLI, null);
    private static final DurationProperty MAX_WAIT =
            new DurationProperty(MAX_WAIT_PROPERTY, DEFAULT_MAX_WAIT, ONE_MILLI, null);
    private static final DurationProperty REFILL_COVER =
            new DurationProperty("idworker.serial.redis.refill-cover", DEFAULT_REFILL_COVER, ONE_MILLI, null);

    private final Duration refillCover;
    private final boolean checkRunId;
    private final MillisClock clock;
    private final @Nullable Executor refillExecutor;

    private RedisSerialOptions(Builder b) {
        super(b);
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
    public @Nullable Executor refillExecutor() {
        return refillExecutor;
    }

    /**
     * Collects settings; {@link #build()} validates them. {@code lockTtl} is {@code idworker.serial.redis.lock-ttl}
     * (at least 1ms), {@code maxWait} is {@code idworker.serial.redis.max-wait} (at least 1ms): the longest a call
     * waits for a refill when the stock is empty.
     */
    public static final class Builder extends RedisRefillOptions.Builder<RedisSerialOptions, Builder> {
        private Duration refillCover = DEFAULT_REFILL_COVER;
        private boolean checkRunId = true;
        private MillisClock clock = MillisClock.SYSTEM;
        private @Nullable Executor refillExecutor;

        private Builder() {
            super(LOCK_TTL, MAX_WAIT);
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

        public Builder refillExecutor(@Nullable Executor refillExecutor) {
            this.refillExecutor = refillExecutor;
            return this;
        }

        @Override
        protected RedisSerialOptions buildChecked() {
            REFILL_COVER.check(refillCover);
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            return new RedisSerialOptions(this);
        }

        @Override
        protected Builder self() {
            return this;
        }
    }

    @Override
    public String toString() {
        return "RedisSerialOptions[keyPrefix=" + keyPrefix() + ", lockTtl=" + lockTtl() + ", maxWait=" + maxWait()
                + ", refillCover=" + refillCover + ", checkRunId=" + checkRunId + "]";
    }
}
