package io.github.idworker;

/**
 * A worker's identifier layout differs from the one pinned for its namespace in the centre. Epoch and bit
 * widths re-encode every identifier, so a namespace keeps the layout of its first borrow for ever; the worker
 * refuses to start rather than issue identifiers that may equal ones issued under the pinned layout.
 */
public class LayoutMismatchException extends IdWorkerConfigurationException {

    /** The properties that together make the layout. */
    public static final String LAYOUT_PROPERTIES = "idworker.snowflake.epoch, idworker.snowflake.timestamp-bits, "
            + "idworker.snowflake.worker-bits, idworker.snowflake.sequence-bits";

    private final String namespace;
    private final String pinnedLayout;
    private final String requestedLayout;

    public LayoutMismatchException(String namespace, String pinnedLayout, String requestedLayout) {
        super(LAYOUT_PROPERTIES, "namespace '" + namespace + "' is pinned to layout [" + pinnedLayout
                + "] in its centre, but this worker was configured with [" + requestedLayout + "]. A namespace's "
                + "layout can never change: identifiers of the two layouts can be equal. Restore the pinned "
                + "values, or use a new idworker.namespace for the new layout.");
        this.namespace = namespace;
        this.pinnedLayout = pinnedLayout;
        this.requestedLayout = requestedLayout;
    }

    public String getNamespace() {
        return namespace;
    }

    /** The layout stored in the centre. */
    public String getPinnedLayout() {
        return pinnedLayout;
    }

    /** The layout of the worker that was refused. */
    public String getRequestedLayout() {
        return requestedLayout;
    }
}
