package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration properties of the snowflake workers {@link io.github.idworker.spring.annotation.EnableIdWorker}
 * registers, of the segment generators {@link io.github.idworker.spring.annotation.EnableSegmentIdGenerators}
 * registers, of the serial numbers {@link io.github.idworker.spring.annotation.EnableSerialNumbers} registers and
 * of the ID pools {@link io.github.idworker.spring.annotation.EnableIdPools} registers.
 * Values are checked when the worker or generator is built; a value idworker cannot run with safely
 * fails the startup with a message naming the property.
 * <p>
 * Each group under {@code idworker.} is a class of its own beside this one, named after the group: the default
 * worker's namespace, {@link SnowflakeProperties}, {@link LeaseProperties} and {@link WorkerIdProperties} (shared
 * with the named generators through {@link SnowflakeWorkerProperties}), the centres' {@link JdbcProperties},
 * {@link RedisProperties} and {@link ZookeeperProperties}, the modes' {@link SegmentProperties},
 * {@link SerialProperties} and {@link PoolProperties}, {@link MetricsProperties}, {@link StatusPageProperties}, and the entity IDs'
 * {@link EntityIdsProperties}.
 */
@ConfigurationProperties(prefix = IdWorkerProperties.PREFIX)
public class IdWorkerProperties extends SnowflakeWorkerProperties {

    public static final String PREFIX = "idworker";

    /**
     * Further snowflake generators, by name (1 to 64 letters, digits, '-' and '_'): each an IdGenerator bean of
     * that name, injected with @Qualifier("name"), with its own namespace in the same centre as the default worker.
     */
    private final Map<String, SnowflakeWorkerProperties> generators = new LinkedHashMap<>();

    /** JDBC centre. */
    @NestedConfigurationProperty
    private final JdbcProperties jdbc = new JdbcProperties();

    /** Redis centre. */
    @NestedConfigurationProperty
    private final RedisProperties redis = new RedisProperties();

    /** ZooKeeper centre. */
    @NestedConfigurationProperty
    private final ZookeeperProperties zookeeper = new ZookeeperProperties();

    /** Segment mode: dense increasing numbers per business tag. */
    @NestedConfigurationProperty
    private final SegmentProperties segment = new SegmentProperties();

    /** Serial numbers: strings of a prefix, a date and a zero-padded number per named rule. */
    @NestedConfigurationProperty
    private final SerialProperties serial = new SerialProperties();

    /** ID pools: per-entity pools of IDs in Redis, refilled from a durable offset in the database. */
    @NestedConfigurationProperty
    private final PoolProperties pool = new PoolProperties();

    /** Micrometer meters of the generators. */
    @NestedConfigurationProperty
    private final MetricsProperties metrics = new MetricsProperties();

    /** The operators' status page at /status. */
    @NestedConfigurationProperty
    private final StatusPageProperties statusPage = new StatusPageProperties();

    /** IDs filled into entities on insert (MyBatis, Spring Data JDBC, Hibernate). */
    @NestedConfigurationProperty
    private final EntityIdsProperties entityIds = new EntityIdsProperties();

    public Map<String, SnowflakeWorkerProperties> getGenerators() {
        return this.generators;
    }

    public JdbcProperties getJdbc() {
        return this.jdbc;
    }

    public RedisProperties getRedis() {
        return this.redis;
    }

    public ZookeeperProperties getZookeeper() {
        return this.zookeeper;
    }

    public SegmentProperties getSegment() {
        return this.segment;
    }

    public SerialProperties getSerial() {
        return this.serial;
    }

    public PoolProperties getPool() {
        return this.pool;
    }

    public MetricsProperties getMetrics() {
        return this.metrics;
    }

    public StatusPageProperties getStatusPage() {
        return this.statusPage;
    }

    public EntityIdsProperties getEntityIds() {
        return this.entityIds;
    }
}
