package io.github.idworker.snowflake;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.LeaseRequest;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Validated settings of one snowflake worker. Every setting has a safe default; {@link Builder#build()}
 * rejects values outside what the lease rules can honour, naming the property.
 */
public final class WorkerOptions {

    private final String namespace;
    private final SnowflakeLayout layout;
    private final Duration leaseTtl;
    private final Duration heartbeatInterval;
    private final Duration maxBackward;
    private final BackwardsPolicy backwardsPolicy;
    private final Duration maxSkew;
    private final Duration lossGuard;
    private final Duration fenceWait;
    private final MillisClock clock;
    private final boolean renewAutomatically;
    private final boolean shutdownHook;
    private final @Nullable WorkerIdPreference preferredWorkerId;

    private WorkerOptions(Builder b) {
        this.namespace = b.namespace;
        // build() puts the default layout in when none was set
        this.layout = Objects.requireNonNull(b.layout);
        this.leaseTtl = b.leaseTtl;
        this.heartbeatInterval = b.heartbeatInterval != null ? b.heartbeatInterval : b.leaseTtl.dividedBy(3);
        this.maxBackward = b.maxBackward;
        this.backwardsPolicy = b.backwardsPolicy;
        this.maxSkew = b.maxSkew;
        this.lossGuard = b.lossGuard;
        this.fenceWait = b.fenceWait;
        this.clock = b.clock;
        this.renewAutomatically = b.renewAutomatically;
        this.shutdownHook = b.shutdownHook;
        this.preferredWorkerId = b.preferredWorkerId;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String namespace() {
        return namespace;
    }

    public SnowflakeLayout layout() {
        return layout;
    }

    public Duration leaseTtl() {
        return leaseTtl;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration maxBackward() {
        return maxBackward;
    }

    public BackwardsPolicy backwardsPolicy() {
        return backwardsPolicy;
    }

    public Duration maxSkew() {
        return maxSkew;
    }

    /**
     * How far above its clock a centre sets the floors of records it lost ({@code idworker.lease.loss-guard}); at
     * least {@code leaseTtl + maxSkew}. Every worker of a namespace must use the same one (or a later one a larger):
     * see {@link Builder#lossGuard}.
     */
    public Duration lossGuard() {
        return lossGuard;
    }

    public Duration fenceWait() {
        return fenceWait;
    }

    public MillisClock clock() {
        return clock;
    }

    public boolean renewAutomatically() {
        return renewAutomatically;
    }

    public boolean shutdownHook() {
        return shutdownHook;
    }

    /** The worker id the worker asks for at its start, or {@code null} for any free one. */
    public @Nullable WorkerIdPreference preferredWorkerId() {
        return preferredWorkerId;
    }

    /** What a namespace may be, in the words of a configuration error. */
    public static final String NAMESPACE_RULE =
            "must be 1 to 64 characters of ASCII letters, digits, '.', '_', ':' or '-' (no spaces)";

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** Whether {@code namespace} keeps {@link #NAMESPACE_RULE}: it becomes part of table rows and Redis keys. */
    public static boolean isValidNamespace(String namespace) {
        return namespace != null && NAMESPACE.matcher(namespace).matches();
    }

    /** The default {@link Builder#lossGuard}: the default ttl (15 s) + max-skew (1 s), with room to raise either. */
    public static final Duration DEFAULT_LOSS_GUARD = Duration.ofSeconds(30);

    /** Collects settings; {@link #build()} validates them. */
    public static final class Builder {
        private String namespace = "default";
        private @Nullable SnowflakeLayout layout;
        private Duration leaseTtl = Duration.ofSeconds(15);
        private @Nullable Duration heartbeatInterval;
        private Duration maxBackward = Duration.ofMillis(10);
        private BackwardsPolicy backwardsPolicy = BackwardsPolicy.SWITCH_WORKER;
        private Duration maxSkew = Duration.ofSeconds(1);
        private Duration lossGuard = DEFAULT_LOSS_GUARD;
        private Duration fenceWait = Duration.ofSeconds(2);
        private MillisClock clock = MillisClock.SYSTEM;
        private boolean renewAutomatically = true;
        private boolean shutdownHook = true;
        private @Nullable WorkerIdPreference preferredWorkerId;

        private Builder() {
        }

        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder layout(@Nullable SnowflakeLayout layout) {
            this.layout = layout;
            return this;
        }

        public Builder leaseTtl(Duration leaseTtl) {
            this.leaseTtl = leaseTtl;
            return this;
        }

        /** Defaults to a third of the lease ttl. */
        public Builder heartbeatInterval(@Nullable Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder maxBackward(Duration maxBackward) {
            this.maxBackward = maxBackward;
            return this;
        }

        public Builder backwardsPolicy(BackwardsPolicy backwardsPolicy) {
            this.backwardsPolicy = backwardsPolicy;
            return this;
        }

        public Builder maxSkew(Duration maxSkew) {
            this.maxSkew = maxSkew;
            return this;
        }

        /**
         * The loss guard: after a loss of the centre's data (a Redis restart without persistence, a wiped table),
         * the first borrower sets every floor to the centre's clock + this. A high-water is stored at most
         * {@code ttl + maxSkew} ahead of the centre's clock (DESIGN rule 13), so it must be at least that, for
         * every worker of the namespace: a value fixed by configuration, not derived from the ttl, keeps the floor
         * above every holder's high-water even when workers of one namespace differ in ttl or max-skew (a rolling
         * change). A namespace's centre keeps the largest and refuses a smaller one while it keeps the namespace's
         * record; across a loss it cannot, so never lower it for a namespace: use a new namespace. A new
         * namespace's first borrow waits this long. Default 30 s.
         */
        public Builder lossGuard(Duration lossGuard) {
            this.lossGuard = lossGuard;
            return this;
        }

        public Builder fenceWait(Duration fenceWait) {
            this.fenceWait = fenceWait;
            return this;
        }

        public Builder clock(MillisClock clock) {
            this.clock = clock;
            return this;
        }

        /** Whether a heartbeat thread renews the lease; tests switch it off to renew by hand. */
        public Builder renewAutomatically(boolean renewAutomatically) {
            this.renewAutomatically = renewAutomatically;
            return this;
        }

        /** Whether a JVM shutdown hook returns the lease; containers that close the worker themselves turn it off. */
        public Builder shutdownHook(boolean shutdownHook) {
            this.shutdownHook = shutdownHook;
            return this;
        }

        /**
         * The worker id to ask for at the start ({@code null}: any free one); it must lie inside the layout's
         * worker ids. See {@link WorkerIdPreference}.
         */
        public Builder preferredWorkerId(@Nullable WorkerIdPreference preferredWorkerId) {
            this.preferredWorkerId = preferredWorkerId;
            return this;
        }

        public WorkerOptions build() {
            if (!isValidNamespace(namespace)) {
                throw new IdWorkerConfigurationException("idworker.namespace",
                        NAMESPACE_RULE + ", was '" + namespace + "'");
            }
            if (layout == null) {
                layout = SnowflakeLayout.defaults();
            }
            positive(leaseTtl, "idworker.lease.ttl");
            if (leaseTtl.toMillis() < 100) {
                throw new IdWorkerConfigurationException("idworker.lease.ttl",
                        "must be at least 100ms, was " + text(leaseTtl));
            }
            if (heartbeatInterval != null) {
                positive(heartbeatInterval, "idworker.lease.heartbeat-interval");
                if (heartbeatInterval.compareTo(leaseTtl.dividedBy(2)) > 0) {
                    throw new IdWorkerConfigurationException("idworker.lease.heartbeat-interval",
                            "must be at most half of idworker.lease.ttl (" + leaseTtl + ") so a renewal can fail once "
                                    + "and still succeed before the lease ends, was " + text(heartbeatInterval));
                }
            }
            notNegative(maxBackward, "idworker.snowflake.max-backward");
            if (maxBackward.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IdWorkerConfigurationException("idworker.snowflake.max-backward",
                        "must be at most 1s (longer steps move the worker to another worker id), was "
                                + text(maxBackward));
            }
            notNegative(maxSkew, "idworker.lease.max-skew");
            positive(lossGuard, "idworker.lease.loss-guard");
            if (lossGuard.compareTo(leaseTtl.plus(maxSkew)) < 0) {
                throw new IdWorkerConfigurationException("idworker.lease.loss-guard", "idworker.lease.ttl ("
                        + leaseTtl + ") + idworker.lease.max-skew (" + maxSkew + ") must be at most "
                        + "idworker.lease.loss-guard (" + lossGuard + "): after a loss of the centre's data the "
                        + "floors lie the loss guard above its clock, and a high-water may lie ttl + max-skew above "
                        + "it. Raise idworker.lease.loss-guard (to the same value on every worker of the "
                        + "namespace) or lower the others.");
            }
            positive(fenceWait, "idworker.lease.fence-wait");
            Objects.requireNonNull(backwardsPolicy, "idworker.snowflake.on-large-backward-step");
            Objects.requireNonNull(clock, "clock");
            WorkerIdPreference preferred = preferredWorkerId;
            if (preferred != null && (preferred.workerId() < 0 || preferred.workerId() >= layout.workerCapacity())) {
                throw new IdWorkerConfigurationException(preferred.property(), "gives worker id "
                        + preferred.workerId() + " (" + preferred.origin() + "), outside the layout's worker ids: "
                        + "allowed are 0 to " + (layout.workerCapacity() - 1) + " (idworker.snowflake.worker-bits = "
                        + layout.workerBits() + " gives " + layout.workerCapacity() + " worker ids)");
            }
            if (preferred != null && preferred.workerId() > LeaseRequest.MAX_PREFERRED_SLOT) {
                throw new IdWorkerConfigurationException(preferred.property(), "gives worker id "
                        + preferred.workerId() + " (" + preferred.origin() + "), above the highest preferred worker "
                        + "id, " + LeaseRequest.MAX_PREFERRED_SLOT + ": the centre writes a record for every unused "
                        + "worker id below a preferred one in one step, which must stay small. Prefer an id of at "
                        + "most " + LeaseRequest.MAX_PREFERRED_SLOT + ", or set idworker.worker-id.source=any");
            }
            return new WorkerOptions(this);
        }

        private static void positive(Duration d, String property) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IdWorkerConfigurationException(property, "must be a positive duration, was " + text(d));
            }
        }

        private static void notNegative(Duration d, String property) {
            if (d == null || d.isNegative()) {
                throw new IdWorkerConfigurationException(property, "must be zero or positive, was " + text(d));
            }
        }
    }

    /** A duration as the properties are written ({@code 15ms}, {@code 30s}), not ISO-8601's {@code PT0.015S}. */
    static String text(Duration d) {
        if (d.toNanos() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        return ms != 0 && ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
