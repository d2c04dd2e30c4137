package io.github.idworker.snowflake;

import io.github.idworker.IdWorkerConfigurationException;

import java.util.Objects;

/**
 * The worker id an operator chose for a worker ({@code idworker.worker-id.*}): a fixed number, or the ordinal of a
 * Kubernetes StatefulSet pod read from its host name ({@code orders-3} → 3). It is a preference, never an
 * authority: the worker still leases it from the centre, which hands it out only while no live lease of another
 * worker holds it and only above its stored high-water, exactly like any other worker id. It applies to the
 * worker's first borrow; a worker that later loses its lease or leaves its id after a clock step takes any free one.
 *
 * @param workerId the preferred worker id; {@link WorkerOptions.Builder#build()} checks that the layout has it
 * @param property the property an error about it names
 * @param origin where it came from, in words for log lines and errors ({@code idworker.worker-id.preferred},
 *        {@code the ordinal of host name 'orders-3'})
 * @param whenTaken what to do when a live lease of another worker holds it
 */
public record WorkerIdPreference(int workerId, String property, String origin, WhenTaken whenTaken) {

    /** The property that names a fixed preferred worker id. */
    public static final String PREFERRED_PROPERTY = "idworker.worker-id.preferred";
    /** The property that chooses where the preferred worker id comes from. */
    public static final String SOURCE_PROPERTY = "idworker.worker-id.source";
    /** The form of host name a StatefulSet pod has, in the words of a configuration error. */
    public static final String STATEFULSET_HOST_FORM = "<statefulset name>-<ordinal>, such as 'orders-3' (a "
            + "Kubernetes StatefulSet pod's name, which is its host name)";

    public WorkerIdPreference {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(whenTaken, "whenTaken");
    }

    /** A fixed worker id ({@code idworker.worker-id.preferred}). */
    public static WorkerIdPreference fixed(int workerId, WhenTaken whenTaken) {
        return new WorkerIdPreference(workerId, PREFERRED_PROPERTY, PREFERRED_PROPERTY + "=" + workerId, whenTaken);
    }

    /**
     * The ordinal of the StatefulSet pod named {@code hostName} ({@code idworker.worker-id.source=statefulset-ordinal}).
     *
     * @throws IdWorkerConfigurationException naming {@value #SOURCE_PROPERTY}, the host name and the form expected,
     *         when the host name carries no ordinal
     */
    public static WorkerIdPreference statefulSetOrdinal(String hostName, WhenTaken whenTaken) {
        return new WorkerIdPreference(ordinalOf(hostName), SOURCE_PROPERTY,
                "the ordinal of host name '" + hostName + "'", whenTaken);
    }

    /**
     * The ordinal of a StatefulSet pod's host name: the decimal number after its last {@code '-'}, in the first
     * label of a fully qualified name ({@code orders-3.orders.shop.svc.cluster.local} → 3).
     *
     * <p>Steps: take the text before the first {@code '.'}; take what follows its last {@code '-'}; it must be 1 to
     * 9 ASCII digits, without a leading zero unless it is {@code 0} (Kubernetes writes ordinals so), and a name
     * must stand before the {@code '-'}.
     *
     * @throws IdWorkerConfigurationException naming {@value #SOURCE_PROPERTY}, the host name and the form expected
     */
    public static int ordinalOf(String hostName) {
        String name = hostName == null ? "" : hostName.strip();
        int dot = name.indexOf('.');
        String label = dot < 0 ? name : name.substring(0, dot);
        int dash = label.lastIndexOf('-');
        String digits = dash < 0 ? "" : label.substring(dash + 1);
        if (dash < 1 || !isOrdinal(digits)) {
            throw new IdWorkerConfigurationException(SOURCE_PROPERTY, "is statefulset-ordinal, which takes the worker "
                    + "id from a host name of the form " + STATEFULSET_HOST_FORM + ", but the host name is '" + name
                    + "' (from the HOSTNAME environment variable, else the local host's name). Run the application "
                    + "as a StatefulSet, or set idworker.worker-id.preferred (a fixed id) or "
                    + SOURCE_PROPERTY + "=any instead.");
        }
        return Integer.parseInt(digits);
    }

    private static boolean isOrdinal(String digits) {
        if (digits.isEmpty() || digits.length() > 9 || (digits.length() > 1 && digits.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
