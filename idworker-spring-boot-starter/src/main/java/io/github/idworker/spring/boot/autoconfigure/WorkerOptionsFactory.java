package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.TickingMillisClock;
import io.github.idworker.snowflake.WorkerOptions;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Turns {@link IdWorkerProperties} into validated {@link WorkerOptions}; an invalid value raises
 * {@link io.github.idworker.IdWorkerConfigurationException} naming its {@code idworker.*} property.
 */
final class WorkerOptionsFactory {

    static final String DEFAULT_NAMESPACE = "default";

    private WorkerOptionsFactory() {
    }

    /** The configured namespace, else {@code spring.application.name}, else {@value #DEFAULT_NAMESPACE}. */
    static String namespace(IdWorkerProperties properties, Environment environment) {
        if (properties.getNamespace() != null) {
            return properties.getNamespace();
        }
        String applicationName = environment.getProperty("spring.application.name");
        return StringUtils.hasText(applicationName) ? applicationName : DEFAULT_NAMESPACE;
    }

    /**
     * Options for a worker that Spring starts and closes: no JVM shutdown hook of its own, since the context's
     * close returns the lease.
     */
    static WorkerOptions create(IdWorkerProperties properties, Environment environment) {
        IdWorkerProperties.Snowflake snowflake = properties.getSnowflake();
        IdWorkerProperties.Lease lease = properties.getLease();
        SnowflakeLayout layout = SnowflakeLayout.of(snowflake.getEpoch(), snowflake.getTimestampBits(),
                snowflake.getWorkerBits(), snowflake.getSequenceBits());
        return WorkerOptions.builder()
                .namespace(namespace(properties, environment))
                .layout(layout)
                .leaseTtl(lease.getTtl())
                .heartbeatInterval(lease.getHeartbeatInterval())
                .maxSkew(lease.getMaxSkew())
                .fenceWait(lease.getFenceWait())
                .maxBackward(snowflake.getMaxBackward())
                .backwardsPolicy(snowflake.getOnLargeBackwardStep())
                .clock(clock(snowflake.getClock()))
                .shutdownHook(false)
                .build();
    }

    private static MillisClock clock(IdWorkerProperties.Clock clock) {
        return (clock == IdWorkerProperties.Clock.TICKING) ? TickingMillisClock.shared() : MillisClock.SYSTEM;
    }
}
