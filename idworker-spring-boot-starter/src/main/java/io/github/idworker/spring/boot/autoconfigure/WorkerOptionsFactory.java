package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerIdPreference;
import io.github.idworker.snowflake.WorkerOptions;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

import java.net.InetAddress;
import java.util.Locale;

/**
 * Turns {@link IdWorkerProperties} into validated {@link WorkerOptions}; an invalid value raises
 * {@link io.github.idworker.IdWorkerConfigurationException} naming its {@code idworker.*} property.
 */
final class WorkerOptionsFactory {

    static final String DEFAULT_NAMESPACE = "default";
    static final String APPLICATION_NAME = "spring.application.name";
    static final String WORKER_BITS = "idworker.snowflake.worker-bits";

    private WorkerOptionsFactory() {
    }

    /**
     * The configured namespace, else {@code spring.application.name}, else {@value #DEFAULT_NAMESPACE}. A
     * namespace taken from {@code spring.application.name} is checked here, so that its error names where the
     * value came from rather than the unset {@code idworker.namespace}.
     */
    static String namespace(IdWorkerProperties properties, Environment environment) {
        if (properties.getNamespace() != null) {
            return properties.getNamespace();
        }
        String applicationName = environment.getProperty(APPLICATION_NAME);
        if (!StringUtils.hasText(applicationName)) {
            return DEFAULT_NAMESPACE;
        }
        if (!WorkerOptions.isValidNamespace(applicationName)) {
            throw new IdWorkerConfigurationException(APPLICATION_NAME, "is '" + applicationName + "', and with "
                    + "idworker.namespace unset the namespace defaults to " + APPLICATION_NAME + "; a namespace "
                    + WorkerOptions.NAMESPACE_RULE + ". Set idworker.namespace to a valid name (e.g. '"
                    + suggestion(applicationName) + "'), or change " + APPLICATION_NAME);
        }
        return applicationName;
    }

    /** The application name with every character a namespace does not allow replaced by '-'. */
    private static String suggestion(String applicationName) {
        String cleaned = applicationName.strip().replaceAll("[^A-Za-z0-9._:-]+", "-").replaceAll("^-|-$", "");
        cleaned = cleaned.isEmpty() ? DEFAULT_NAMESPACE : cleaned;
        return cleaned.length() > 64 ? cleaned.substring(0, 64) : cleaned;
    }

    /**
     * Options for a worker that Spring starts and closes: no JVM shutdown hook of its own, since the context's
     * close returns the lease.
     */
    static WorkerOptions create(IdWorkerProperties properties, Environment environment) {
        return create(namespace(properties, environment), properties.getSnowflake(), properties.getLease(),
                properties.getWorkerId(), environment);
    }

    /**
     * Options of a worker in {@code namespace} from the groups {@code idworker.snowflake}, {@code idworker.lease}
     * and {@code idworker.worker-id} (or a named generator's groups, which have the same keys); errors name the
     * {@code idworker.*} keys.
     */
    static WorkerOptions create(String namespace, SnowflakeProperties snowflake, LeaseProperties lease,
                                WorkerIdProperties workerId, Environment environment) {
        if (snowflake.getWorkerBits() < 1) {
            // the core allows a single worker id for programs that know they run once; an application started
            // through the starter usually runs as several instances, the second of which could never start
            throw new IdWorkerConfigurationException(WORKER_BITS, "must be 1 to 20 (2^worker-bits workers may run at "
                    + "once in a namespace), was " + snowflake.getWorkerBits() + ": with 0 a namespace has a single "
                    + "worker id, so a second instance of the application fails with WorkerIdExhaustedException");
        }
        SnowflakeLayout layout = SnowflakeLayout.of(snowflake.getEpoch(), snowflake.getTimestampBits(),
                snowflake.getWorkerBits(), snowflake.getSequenceBits());
        return WorkerOptions.builder()
                .namespace(namespace)
                .layout(layout)
                .leaseTtl(lease.getTtl())
                .heartbeatInterval(lease.getHeartbeatInterval())
                .maxSkew(lease.getMaxSkew())
                .lossGuard(lease.getLossGuard())
                .fenceWait(lease.getFenceWait())
                .maxBackward(snowflake.getMaxBackward())
                .backwardsPolicy(snowflake.getOnLargeBackwardStep())
                .clock(clock(snowflake.getClock()))
                .preferredWorkerId(preferredWorkerId(workerId, environment))
                .shutdownHook(false)
                .build();
    }

    /** The environment variable a Kubernetes pod's host name is in. */
    static final String HOSTNAME = "HOSTNAME";

    /**
     * The worker id {@code idworker.worker-id.*} asks for, or {@code null} for any; the layout's range is checked by
     * {@link WorkerOptions.Builder#build()}.
     */
    static @Nullable WorkerIdPreference preferredWorkerId(WorkerIdProperties workerId, Environment environment) {
        Integer preferred = workerId.getPreferred();
        WorkerIdProperties.Source source = workerId.getSource();
        if (source == null) {
            source = preferred != null ? WorkerIdProperties.Source.FIXED : WorkerIdProperties.Source.ANY;
        }
        if (preferred != null && source != WorkerIdProperties.Source.FIXED) {
            throw new IdWorkerConfigurationException(WorkerIdPreference.PREFERRED_PROPERTY, "is set (" + preferred
                    + "), but " + WorkerIdPreference.SOURCE_PROPERTY + " is " + sourceName(source) + ", which does not "
                    + "read it. Remove one of them, or set " + WorkerIdPreference.SOURCE_PROPERTY + "=fixed");
        }
        return switch (source) {
            case ANY -> null;
            case FIXED -> {
                if (preferred == null) {
                    throw new IdWorkerConfigurationException(WorkerIdPreference.PREFERRED_PROPERTY, "must be set "
                            + "when " + WorkerIdPreference.SOURCE_PROPERTY + "=fixed: the worker id to take, 0 to "
                            + "2^idworker.snowflake.worker-bits - 1");
                }
                yield WorkerIdPreference.fixed(preferred, workerId.getWhenTaken());
            }
            case STATEFULSET_ORDINAL -> WorkerIdPreference.statefulSetOrdinal(hostName(environment),
                    workerId.getWhenTaken());
        };
    }

    private static String sourceName(WorkerIdProperties.Source source) {
        return source.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@value #HOSTNAME} (the environment variable, or a property of that name), else the local host's name. */
    private static String hostName(Environment environment) {
        String host = environment.getProperty(HOSTNAME);
        if (StringUtils.hasText(host)) {
            return host;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            throw new IdWorkerConfigurationException(WorkerIdPreference.SOURCE_PROPERTY, "is statefulset-ordinal, "
                    + "but neither the " + HOSTNAME + " environment variable nor the local host's name could be read ("
                    + e + "); expected a host name of the form " + WorkerIdPreference.STATEFULSET_HOST_FORM, e);
        }
    }

    private static MillisClock clock(SnowflakeProperties.Clock clock) {
        return switch (clock) {
            case SYSTEM -> MillisClock.SYSTEM;
        };
    }
}
