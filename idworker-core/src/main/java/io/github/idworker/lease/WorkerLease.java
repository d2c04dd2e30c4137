package io.github.idworker.lease;

import io.github.idworker.ClockAheadOfCentreException;

import java.time.Duration;
import java.util.Objects;

/**
 * A slot a worker holds: it may issue identifiers with this worker id and timestamps in
 * {@code (floorMillis, highWaterMillis]}, both in the worker's clock.
 *
 * @param namespace the id space
 * @param workerId the slot
 * @param owner the owner token the centre checks on renew and return
 * @param floorMillis the slot's stored high-water when it was claimed; issue only above it
 * @param highWaterMillis the high-water this holder stored last; issue only up to it
 * @param generation an opaque centre marker (the Redis centre's data generation); empty where unused
 * @param ttl how long the lease lives in centre time after each borrow or renewal (from the request)
 * @param maxSkew the largest difference tolerated between the holder's and the centre's clock (from the request):
 *        a renewal asking for a high-water beyond the centre's clock + {@code ttl + maxSkew} is refused with
 *        {@link ClockAheadOfCentreException} (DESIGN rule 13)
 */
public record WorkerLease(String namespace, int workerId, String owner, long floorMillis, long highWaterMillis,
                          String generation, Duration ttl, Duration maxSkew) {

    public WorkerLease {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(maxSkew, "maxSkew");
        generation = generation == null ? "" : generation;
    }

    /**
     * A lease without a stated max-skew (a centre written before it was part of the lease): zero, the strictest
     * bound, so a renewal may ask for at most the centre's clock + ttl.
     */
    public WorkerLease(String namespace, int workerId, String owner, long floorMillis, long highWaterMillis,
                       String generation, Duration ttl) {
        this(namespace, workerId, owner, floorMillis, highWaterMillis, generation, ttl, Duration.ZERO);
    }

    /** A lease claimed for {@code request}. */
    public static WorkerLease of(LeaseRequest request, int workerId, long floorMillis, long highWaterMillis,
                                 String generation) {
        return new WorkerLease(request.namespace(), workerId, request.owner(), floorMillis, highWaterMillis,
                generation, request.ttl(), request.maxSkew());
    }

    /** The same lease with a new high-water. */
    public WorkerLease withHighWater(long newHighWaterMillis) {
        return new WorkerLease(namespace, workerId, owner, floorMillis, newHighWaterMillis, generation, ttl, maxSkew);
    }

    /**
     * The worker clock a renewal to {@code requestedHighWater} states: the holder asks for its clock + ttl.
     */
    public long workerMillisOf(long requestedHighWater) {
        return requestedHighWater - ttl.toMillis();
    }

    /**
     * Refuses a renewal to {@code requestedHighWater} that would store a high-water beyond the centre's clock +
     * {@code ttl + maxSkew}, i.e. whose holder's clock is more than {@code maxSkew} ahead of the centre's. A request
     * at or below the high-water already stored ({@code storedHighWater}) stores nothing new and passes.
     *
     * @throws ClockAheadOfCentreException naming both clocks and max-skew
     */
    public void refuseRenewalIfAhead(long requestedHighWater, long storedHighWater, long centreMillis) {
        if (requestedHighWater > storedHighWater) {
            ClockAheadOfCentreException.refuseIfAhead(namespace, "renewal of worker id " + workerId,
                    workerMillisOf(requestedHighWater), centreMillis, maxSkew.toMillis());
        }
    }
}
