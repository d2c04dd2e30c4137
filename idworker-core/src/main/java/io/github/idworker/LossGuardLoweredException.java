package io.github.idworker;

/**
 * A worker's loss guard ({@code idworker.lease.loss-guard}) is smaller than the one its namespace's centre keeps,
 * the largest any worker of the namespace asked for. After a loss of the centre's data, the first borrower sets
 * every floor to the centre's clock + its own loss guard; a smaller one than another worker's could lie below
 * high-waters that worker stored, and both would issue the same identifiers. So, like the layout, a namespace's
 * loss guard may grow but never shrink: the worker refuses to start. The centre can tell only while it keeps the
 * namespace's record; after a loss it cannot, so never lower the setting for a namespace.
 */
public class LossGuardLoweredException extends IdWorkerConfigurationException {

    /** The property the guard is configured by. */
    public static final String PROPERTY = "idworker.lease.loss-guard";

    private final String namespace;
    private final long storedGuardMillis;
    private final long requestedGuardMillis;

    public LossGuardLoweredException(String namespace, long storedGuardMillis, long requestedGuardMillis) {
        super(PROPERTY, "namespace '" + namespace + "' keeps a loss guard of " + storedGuardMillis + " ms in its "
                + "centre (the largest " + PROPERTY + " of its workers), but this worker was configured with "
                + requestedGuardMillis + " ms. A smaller guard lets floors after a loss of the centre's data fall "
                + "below high-waters of the namespace's other workers. Set " + PROPERTY + " to at least "
                + storedGuardMillis + " ms, or use a new idworker.namespace to lower it.");
        this.namespace = namespace;
        this.storedGuardMillis = storedGuardMillis;
        this.requestedGuardMillis = requestedGuardMillis;
    }

    public String getNamespace() {
        return namespace;
    }

    /** The loss guard the centre keeps for the namespace, in milliseconds. */
    public long getStoredGuardMillis() {
        return storedGuardMillis;
    }

    /** The loss guard of the worker that was refused, in milliseconds. */
    public long getRequestedGuardMillis() {
        return requestedGuardMillis;
    }
}
