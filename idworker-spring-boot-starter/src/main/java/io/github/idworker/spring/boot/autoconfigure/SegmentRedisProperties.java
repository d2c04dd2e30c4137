package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Redis sequence generators, used with {@code @EnableSegmentIdGenerators(redisSequences = true)}.
 * Bound to {@code idworker.segment.redis.*}.
 */
public class SegmentRedisProperties {

    /**
     * Numbers a Redis sequence takes from the segment table per refill; a batch larger than the step takes
     * a range of its own size.
     */
    private int step = 1000;

    /**
     * Largest number of ids one nextIds call of a Redis sequence may ask for.
     */
    private int maxBatch = 100000;

    /**
     * How long a refill lock lives when its owner dies before releasing it; longer than a database
     * allocation takes. At least 100ms.
     */
    private Duration lockTtl = Duration.ofSeconds(10);

    /**
     * Longest a call of a Redis sequence waits for a refill, before it gets SegmentRefillTimeoutException.
     */
    private Duration maxWait = Duration.ofSeconds(3);

    /**
     * Whether every call refuses a range installed by another Redis process (a restart that restored an old
     * snapshot, a failover to a lagging replica) and refills above the table's max_id instead. Costs one
     * INFO call inside the script; switch it off only for Redis without persistence and replicas.
     */
    private boolean checkRunId = true;

    /**
     * Whether concurrent calls of one Redis sequence in this process share one Redis call while another is in
     * flight; numbers are still handed out in arrival order, and the check-run-id runs on every shared call.
     */
    private boolean coalesce = true;

    /**
     * Most Redis calls of one coalescing sequence in flight at once, 1 to 64: up to this many callers go
     * straight to Redis, further callers queue and share the next call. 2 keeps two callers from queueing
     * behind each other; first come, first served holds for any value.
     */
    private int maxInFlight = 2;

    /**
     * Share of a Redis sequence's range used when the next range is installed ahead of it in Redis, in the
     * background, so that callers never wait for the database; above 0, at most 1 (1 installs none ahead).
     */
    private double prefetchThreshold = 0.2;

    public int getStep() {
        return this.step;
    }

    public void setStep(int step) {
        this.step = step;
    }

    public int getMaxBatch() {
        return this.maxBatch;
    }

    public void setMaxBatch(int maxBatch) {
        this.maxBatch = maxBatch;
    }

    public Duration getLockTtl() {
        return this.lockTtl;
    }

    public void setLockTtl(Duration lockTtl) {
        this.lockTtl = lockTtl;
    }

    public Duration getMaxWait() {
        return this.maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public boolean isCheckRunId() {
        return this.checkRunId;
    }

    public void setCheckRunId(boolean checkRunId) {
        this.checkRunId = checkRunId;
    }

    public boolean isCoalesce() {
        return this.coalesce;
    }

    public int getMaxInFlight() {
        return this.maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public void setCoalesce(boolean coalesce) {
        this.coalesce = coalesce;
    }

    public double getPrefetchThreshold() {
        return this.prefetchThreshold;
    }

    public void setPrefetchThreshold(double prefetchThreshold) {
        this.prefetchThreshold = prefetchThreshold;
    }
}
