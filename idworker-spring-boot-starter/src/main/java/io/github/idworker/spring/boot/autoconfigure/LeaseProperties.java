package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * Lease of the worker id.
 * Bound to {@code idworker.lease.*}.
 */
public class LeaseProperties {

    /**
     * How long a lease lives in the centre's time unless renewed; a crashed worker's id is free again
     * after it. Also how far ahead of the clock the worker may issue before it must renew.
     */
    private Duration ttl = Duration.ofSeconds(15);

    /**
     * Time between two renewals. Defaults to a third of the ttl; at most half of it.
     */
    private @Nullable Duration heartbeatInterval;

    /**
     * Largest clock difference tolerated between the workers and the centre.
     */
    private Duration maxSkew = Duration.ofSeconds(1);

    /**
     * How far above its clock the centre sets every worker id's floor after it lost the namespace's data (a
     * Redis restart without persistence, a wiped table); also how long the first borrow of a new namespace
     * waits. Must be at least ttl + max-skew, and the same on every instance of the namespace: the centre
     * refuses a smaller one than it keeps, but cannot tell after a loss. Never lower it for a namespace; use a
     * new idworker.namespace instead.
     */
    private Duration lossGuard = Duration.ofSeconds(30);

    /**
     * How long a caller waits for a renewal when the worker reached the end of its lease, before it gets a
     * LeaseLostException.
     */
    private Duration fenceWait = Duration.ofSeconds(2);

    public Duration getTtl() {
        return this.ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    public @Nullable Duration getHeartbeatInterval() {
        return this.heartbeatInterval;
    }

    public void setHeartbeatInterval(@Nullable Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getMaxSkew() {
        return this.maxSkew;
    }

    public void setMaxSkew(Duration maxSkew) {
        this.maxSkew = maxSkew;
    }

    public Duration getLossGuard() {
        return this.lossGuard;
    }

    public void setLossGuard(Duration lossGuard) {
        this.lossGuard = lossGuard;
    }

    public Duration getFenceWait() {
        return this.fenceWait;
    }

    public void setFenceWait(Duration fenceWait) {
        this.fenceWait = fenceWait;
    }
}
