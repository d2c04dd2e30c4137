package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * One ID pool entity registered at startup. The pool refills when it holds fewer than max-pool-size ×
 * threshold-percent / 100 IDs, in whole chunks of "step" that must fit in the room above that level. Unset
 * values take the defaults named.
 * Bound to {@code idworker.pool.entities.<entity-key>.*}.
 */
public class PoolEntityProperties {

    /**
     * What the IDs number, for people, at most 128 characters. Defaults to the entity key.
     */
    private @Nullable String name;

    /**
     * How IDs follow each other: MONOTONIC (increasing in take order across all nodes) or TREND (increasing
     * chunk by chunk, shuffled within a chunk). Defaults to MONOTONIC.
     */
    private IncreasingType type = IncreasingType.MONOTONIC;

    /**
     * First offset handed out; with one environment the first ID. Defaults to 1.
     */
    private long startOffset = PoolEntity.DEFAULT_START_OFFSET;

    /**
     * Offsets one chunk holds: the unit of a database reservation and of a TREND shuffle, 1 to 1000000.
     * Defaults to 1000.
     */
    private int step = PoolEntity.DEFAULT_STEP;

    /**
     * Most IDs one take may ask for, at most "max-per-second" and "max-pool-size". Defaults to 1000.
     */
    private int maxPerRequest = PoolEntity.DEFAULT_MAX_PER_REQUEST;

    /**
     * Most IDs taken per second across all nodes; a take past it fails with RateLimitedException. Defaults to
     * 5000.
     */
    private int maxPerSecond = PoolEntity.DEFAULT_MAX_PER_SECOND;

    /**
     * Level, in percent of "max-pool-size", below which the pool is refilled and counts as low; 1 to 99.
     * Defaults to 80.
     */
    private int thresholdPercent = PoolEntity.DEFAULT_THRESHOLD_PERCENT;

    /**
     * Time between two refill checks of the pool on each node, from 10ms to 1h. Defaults to 1s.
     */
    private Duration checkInterval = PoolEntity.DEFAULT_CHECK_INTERVAL;

    /**
     * Most IDs the Redis list ever holds, 1 to 100000000. Defaults to 60 seconds of "max-per-second".
     */
    private @Nullable Long maxPoolSize;

    /**
     * MONOTONIC only: up to this many offsets skipped at random after each ID, so IDs do not reveal business
     * volume; 0 to 1000000. Defaults to 0, no gaps.
     */
    private int maxGap = 0;

    public @Nullable String getName() {
        return this.name;
    }

    public void setName(@Nullable String name) {
        this.name = name;
    }

    public IncreasingType getType() {
        return this.type;
    }

    public void setType(IncreasingType type) {
        this.type = type;
    }

    public long getStartOffset() {
        return this.startOffset;
    }

    public void setStartOffset(long startOffset) {
        this.startOffset = startOffset;
    }

    public int getStep() {
        return this.step;
    }

    public void setStep(int step) {
        this.step = step;
    }

    public int getMaxPerRequest() {
        return this.maxPerRequest;
    }

    public void setMaxPerRequest(int maxPerRequest) {
        this.maxPerRequest = maxPerRequest;
    }

    public int getMaxPerSecond() {
        return this.maxPerSecond;
    }

    public void setMaxPerSecond(int maxPerSecond) {
        this.maxPerSecond = maxPerSecond;
    }

    public int getThresholdPercent() {
        return this.thresholdPercent;
    }

    public void setThresholdPercent(int thresholdPercent) {
        this.thresholdPercent = thresholdPercent;
    }

    public Duration getCheckInterval() {
        return this.checkInterval;
    }

    public void setCheckInterval(Duration checkInterval) {
        this.checkInterval = checkInterval;
    }

    public @Nullable Long getMaxPoolSize() {
        return this.maxPoolSize;
    }

    public void setMaxPoolSize(@Nullable Long maxPoolSize) {
        this.maxPoolSize = maxPoolSize;
    }

    public int getMaxGap() {
        return this.maxGap;
    }

    public void setMaxGap(int maxGap) {
        this.maxGap = maxGap;
    }
}
