package io.github.idworker;

/**
 * Every worker id of a namespace is leased by a live holder; no worker id was taken.
 */
public class WorkerIdExhaustedException extends IdWorkerException {

    private final String namespace;
    private final int capacity;

    public WorkerIdExhaustedException(String namespace, int capacity) {
        super("All " + capacity + " worker ids of namespace '" + namespace + "' are leased by live workers. "
                + "Stop idle workers, use another namespace, or widen idworker.snowflake.worker-bits.");
        this.namespace = namespace;
        this.capacity = capacity;
    }

    public String getNamespace() {
        return namespace;
    }

    public int getCapacity() {
        return capacity;
    }
}
