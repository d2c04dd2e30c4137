package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Strict serial numbers, used with {@code @EnableSerialNumbers(mode = SerialMode.STRICT)}.
 * Bound to {@code idworker.serial.redis.*}.
 */
public class SerialRedisProperties {

    /**
     * How long a refill lock lives when its owner dies before releasing it; longer than a database
     * reservation takes.
     */
    private Duration lockTtl = Duration.ofSeconds(10);

    /**
     * Longest a call waits for a refill when the stock of its rule is empty, before it fails.
     */
    private Duration maxWait = Duration.ofSeconds(3);

    /**
     * How much time of measured demand one refill holds, within the rule's "min-batch" and "max-batch".
     */
    private Duration refillCover = Duration.ofMinutes(5);

    /**
     * Whether every take refuses a stock installed by another Redis process (a restart that restored an old
     * snapshot, a failover to a lagging replica) and refills above the database's high-water instead. Switch
     * it off only for Redis without persistence and replicas.
     */
    private boolean checkRunId = true;

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

    public Duration getRefillCover() {
        return this.refillCover;
    }

    public void setRefillCover(Duration refillCover) {
        this.refillCover = refillCover;
    }

    public boolean isCheckRunId() {
        return this.checkRunId;
    }

    public void setCheckRunId(boolean checkRunId) {
        this.checkRunId = checkRunId;
    }
}
