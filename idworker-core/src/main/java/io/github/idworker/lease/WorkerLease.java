package io.github.idworker.lease;

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
 */
public record WorkerLease(String namespace, int workerId, String owner, long floorMillis, long highWaterMillis,
                          String generation, Duration ttl) {

    public WorkerLease {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        generation = generation == null ? "" : generation;
    }

    /** A lease claimed for {@code request}. */
    public static WorkerLease of(LeaseRequest request, int workerId, long floorMillis, long highWaterMillis,
                                 String generation) {
        return new WorkerLease(request.namespace(), workerId, request.owner(), floorMillis, highWaterMillis,
                generation, request.ttl());
    }

    /** The same lease with a new high-water. */
    public WorkerLease withHighWater(long newHighWaterMillis) {
        return new WorkerLease(namespace, workerId, owner, floorMillis, newHighWaterMillis, generation, ttl);
    }
}
