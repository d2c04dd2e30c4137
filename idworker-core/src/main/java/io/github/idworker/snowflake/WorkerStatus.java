package io.github.idworker.snowflake;

import io.github.idworker.lease.WorkerLease;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * A point-in-time view of one snowflake worker, for health checks and operators: the lease it holds, how far
 * its clock is from the lease's high-water, and what went wrong last.
 *
 * <p>Guarantee: {@link #canIssue()} is true only when, at {@link #nowMillis()}, the worker held a lease and the
 * current millisecond lay at or below the lease's stored high-water, so a {@code nextId()} at that moment would
 * not have had to wait for a renewal. It is a snapshot: it may be stale by the time it is read.
 *
 * @param namespace the worker's namespace
 * @param lease the lease in use, or {@code null} when the worker is not started or closed
 * @param nowMillis the worker's clock when the snapshot was taken, milliseconds since 1970
 * @param closed whether the worker was closed
 * @param leaseSwitches how often the worker moved to another worker id
 * @param fenceTrips how often a caller found the high-water reached and waited for a renewal
 * @param lastRenewalFailure the last failed renewal since the last good one, as text, or {@code null}
 */
public record WorkerStatus(String namespace, @Nullable WorkerLease lease, long nowMillis, boolean closed,
                           long leaseSwitches, long fenceTrips, @Nullable String lastRenewalFailure) {

    /** Whether the worker could issue at {@link #nowMillis()} without waiting for its centre. */
    public boolean canIssue() {
        return !closed && lease != null && nowMillis <= lease.highWaterMillis();
    }

    /**
     * Milliseconds from {@link #nowMillis()} to the lease's high-water: how long the worker can go on issuing
     * if its centre stops answering now. Negative when it is fenced; 0 without a lease.
     */
    public long millisToHighWater() {
        return lease == null ? 0 : lease.highWaterMillis() - nowMillis;
    }

    /** One word for the state: {@code issuing}, {@code fenced}, {@code not-started} or {@code closed}. */
    public String state() {
        if (closed) {
            return "closed";
        }
        if (lease == null) {
            return "not-started";
        }
        return canIssue() ? "issuing" : "fenced";
    }

    @Override
    public String toString() {
        return "WorkerStatus[" + namespace + ", " + state()
                + (lease == null ? "" : ", worker id " + lease.workerId() + ", high-water "
                        + Instant.ofEpochMilli(lease.highWaterMillis()) + " (" + millisToHighWater() + " ms ahead)")
                + (lastRenewalFailure == null ? "" : ", last renewal failure: " + lastRenewalFailure) + "]";
    }
}
