package io.github.idworker;

import org.jspecify.annotations.Nullable;

/**
 * The worker id a worker preferred ({@code idworker.worker-id.*}) is held by a live lease of another worker; nothing
 * was claimed. The lease stays the authority over a chosen worker id: two live processes never share one.
 */
public class WorkerIdTakenException extends IdWorkerException {

    private final String namespace;
    private final int workerId;
    private final @Nullable String holder;

    /**
     * @param holder who holds the worker id, for humans ({@code host=…;pid=…}), or {@code null} when the centre did
     *        not say
     */
    public WorkerIdTakenException(String namespace, int workerId, @Nullable String holder) {
        super("Worker id " + workerId + " of namespace '" + namespace + "' is held by a live lease of another worker"
                + (holder == null || holder.isBlank() ? "" : " (" + holder + ")") + ", so this worker cannot take it "
                + "as its preferred worker id. Stop the other worker or wait until its lease ends (idworker.lease.ttl "
                + "after it stopped without returning it), choose another idworker.worker-id.preferred, or set "
                + "idworker.worker-id.when-taken=any to take any free worker id instead.");
        this.namespace = namespace;
        this.workerId = workerId;
        this.holder = holder;
    }

    public String getNamespace() {
        return namespace;
    }

    /** The preferred worker id that is held. */
    public int getWorkerId() {
        return workerId;
    }

    /** Who holds it, as the centre recorded it for humans; {@code null} when unknown. */
    public @Nullable String getHolder() {
        return holder;
    }
}
