package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.WhenTaken;
import org.jspecify.annotations.Nullable;

/**
 * Which worker id the snowflake worker asks its centre for at startup. Bound to {@code idworker.worker-id.*}. The
 * centre's lease stays the authority: a chosen worker id is taken only while no other live worker holds it.
 */
public class WorkerIdProperties {

    /** Where the preferred worker id comes from: a worker id of the worker's own choice. */
    public enum Source {
        /** No preference: any free worker id. */
        ANY,
        /** The worker id set in idworker.worker-id.preferred. */
        FIXED,
        /** The ordinal of a Kubernetes StatefulSet pod, read from its host name (orders-3 gives 3). */
        STATEFULSET_ORDINAL
    }

    /**
     * Where the preferred worker id comes from. Defaults to fixed when idworker.worker-id.preferred is set, else any.
     * The statefulset-ordinal host name is the HOSTNAME environment variable, else the local host's name.
     */
    private @Nullable Source source;

    /** Worker id to take at startup; between 0 and 2^idworker.snowflake.worker-bits - 1, and at most 1023. */
    private @Nullable Integer preferred;

    /**
     * What the worker does at startup when another live worker holds its preferred worker id: fail the startup, or
     * take any free worker id (and log which).
     */
    private WhenTaken whenTaken = WhenTaken.FAIL;

    public @Nullable Source getSource() {
        return this.source;
    }

    public void setSource(@Nullable Source source) {
        this.source = source;
    }

    public @Nullable Integer getPreferred() {
        return this.preferred;
    }

    public void setPreferred(@Nullable Integer preferred) {
        this.preferred = preferred;
    }

    public WhenTaken getWhenTaken() {
        return this.whenTaken;
    }

    public void setWhenTaken(WhenTaken whenTaken) {
        this.whenTaken = whenTaken;
    }
}
