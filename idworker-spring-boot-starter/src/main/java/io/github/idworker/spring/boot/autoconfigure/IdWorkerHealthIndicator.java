package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.WorkerStatus;
import io.github.idworker.spring.boot.actuate.PublishedFailures;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reports every snowflake worker of the context as one health component ({@code idWorker}): UP while each worker
 * holds a lease whose stored high-water lies at or above its clock, so that {@code nextId()} can issue without
 * waiting for the centre; DOWN as soon as one worker is fenced (its centre has not renewed the lease in time),
 * not started or closed. It reads in-memory state only and never calls the centre, so a health probe costs no
 * round trip and cannot itself fail because the centre is slow.
 *
 * <p>Details per worker bean: namespace, state, worker id, lease floor and high-water, milliseconds left to the
 * high-water (how long the worker survives a centre outage from now), lease switches, fence trips and the last
 * renewal failure since the last good renewal (its class, time and {@code errorId}; the message is logged under that
 * id). A failed renewal with time left stays UP: identifiers are still
 * safe and keep coming; the failure shows in the details.
 */
public class IdWorkerHealthIndicator implements HealthIndicator {

    private final Map<String, AbstractIdWorker> workers;

    /** @param workers the workers to report, by bean name */
    public IdWorkerHealthIndicator(Map<String, AbstractIdWorker> workers) {
        this.workers = new TreeMap<>(workers);
    }

    @Override
    public Health health() {
        boolean allIssuing = true;
        Map<String, Object> details = new LinkedHashMap<>();
        for (Map.Entry<String, AbstractIdWorker> e : workers.entrySet()) {
            WorkerStatus status = e.getValue().status();
            allIssuing &= status.canIssue();
            details.put(e.getKey(), describe(e.getKey(), status));
        }
        return (allIssuing ? Health.up() : Health.down()).withDetails(details).build();
    }

    private static Map<String, Object> describe(String bean, WorkerStatus status) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("namespace", status.namespace());
        d.put("state", status.state());
        WorkerLease lease = status.lease();
        if (lease != null) {
            d.put("workerId", lease.workerId());
            d.put("floor", Instant.ofEpochMilli(lease.floorMillis()).toString());
            d.put("highWater", Instant.ofEpochMilli(lease.highWaterMillis()).toString());
            d.put("millisToHighWater", status.millisToHighWater());
        }
        d.put("leaseSwitches", status.leaseSwitches());
        d.put("fenceTrips", status.fenceTrips());
        if (status.lastRenewalFailure() != null) {
            // class, time and errorId only: the message names the centre's host, table or key (PublishedFailures)
            d.put("lastRenewalFailure", PublishedFailures.publishRenewal("worker " + bean, status.lastRenewalFailure()));
        }
        return d;
    }
}
