package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The keys of one snowflake worker: its namespace and the groups {@link SnowflakeProperties},
 * {@link LeaseProperties} and {@link WorkerIdProperties}. The default worker of {@code @EnableIdWorker} reads them
 * under {@code idworker.}, each named generator under {@code idworker.generators.<name>.}, where a key left unset
 * takes the default worker's value, so a generator differs from the default worker only where it says so.
 */
public class SnowflakeWorkerProperties {

    /**
     * Id space the worker leases its worker id in; workers of different namespaces may issue the same ids. The
     * default worker's defaults to "spring.application.name" when set, otherwise "default"; a named generator
     * must set one of its own, different from every other worker's.
     */
    private @Nullable String namespace;

    /** Bit layout of the ids and how the worker treats its clock. */
    @NestedConfigurationProperty
    private final SnowflakeProperties snowflake = new SnowflakeProperties();

    /** Lease of the worker id. */
    @NestedConfigurationProperty
    private final LeaseProperties lease = new LeaseProperties();

    /** Worker id the worker prefers: a fixed one, or a StatefulSet pod's ordinal. */
    @NestedConfigurationProperty
    private final WorkerIdProperties workerId = new WorkerIdProperties();

    public @Nullable String getNamespace() {
        return this.namespace;
    }

    public void setNamespace(@Nullable String namespace) {
        this.namespace = namespace;
    }

    public SnowflakeProperties getSnowflake() {
        return this.snowflake;
    }

    public LeaseProperties getLease() {
        return this.lease;
    }

    public WorkerIdProperties getWorkerId() {
        return this.workerId;
    }
}
