package io.github.idworker.spring.boot.actuate;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code idworker} ({@code GET /actuator/idworker} once exposed): leases, segment tags,
 * Redis sequences, serial rules and ID pools of this process as an {@link IdWorkerReport}. Read-only, and it
 * reads memory only: it never calls Redis or the database, so it answers at once while a store is down and
 * costs nothing to poll.
 */
@Endpoint(id = IdWorkerEndpoint.ID)
public class IdWorkerEndpoint {

    /** The endpoint id, also its path under the Actuator base path. */
    public static final String ID = "idworker";

    private final IdWorkerReporter reporter;

    /** @param reporter builds the report */
    public IdWorkerEndpoint(IdWorkerReporter reporter) {
        this.reporter = reporter;
    }

    /** The report; every array present, empty when the mode is absent. */
    @ReadOperation
    public IdWorkerReport report() {
        return reporter.report();
    }
}
