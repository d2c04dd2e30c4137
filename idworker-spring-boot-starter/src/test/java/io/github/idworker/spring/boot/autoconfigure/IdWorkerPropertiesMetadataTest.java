package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialOptions;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs show: generated from {@link IdWorkerProperties} plus the hand-written value
 * hints, which must name real properties and values that bind.
 */
class IdWorkerPropertiesMetadataTest {

    private static JsonNode read(String resource) throws Exception {
        try (InputStream in = IdWorkerPropertiesMetadataTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return JsonMapper.builder().build().readTree(in);
        }
    }

    @Test
    void everyPropertyIsDescribed() throws Exception {
        JsonNode generated = read("META-INF/spring-configuration-metadata.json");
        Set<String> names = new HashSet<>();
        for (JsonNode property : generated.get("properties")) {
            names.add(property.get("name").asString());
            assertThat(property.path("description").asString()).as(property.get("name").asString()).isNotBlank()
                    .doesNotStartWith("The ").doesNotStartWith("A ");
        }
        assertThat(names).contains("idworker.namespace", "idworker.snowflake.epoch",
                "idworker.snowflake.timestamp-bits", "idworker.snowflake.worker-bits",
                "idworker.snowflake.sequence-bits", "idworker.snowflake.max-backward",
                "idworker.snowflake.on-large-backward-step", "idworker.snowflake.clock", "idworker.lease.ttl",
                "idworker.lease.heartbeat-interval", "idworker.lease.max-skew", "idworker.lease.loss-guard", "idworker.lease.fence-wait",
                "idworker.jdbc.table", "idworker.jdbc.initialize-schema", "idworker.jdbc.statement-timeout",
                "idworker.jdbc.network-timeout", "idworker.redis.key-prefix",
                "idworker.zookeeper.connect-string", "idworker.zookeeper.base-path",
                "idworker.zookeeper.session-timeout", "idworker.zookeeper.connection-timeout",
                "idworker.zookeeper.operation-timeout", "idworker.zookeeper.retry.base-sleep",
                "idworker.zookeeper.retry.max-retries",
                "idworker.segment.table", "idworker.segment.auto-create", "idworker.segment.initialize-schema",
                "idworker.segment.tags", "idworker.segment.min-step", "idworker.segment.max-step",
                "idworker.segment.initial-step", "idworker.segment.prefetch-threshold",
                "idworker.segment.target-lifetime", "idworker.segment.max-wait",
                "idworker.segment.min-load-lifetime", "idworker.segment.max-steps-per-load", "idworker.segment.redis.step",
                "idworker.segment.redis.max-batch", "idworker.segment.redis.lock-ttl",
                "idworker.segment.redis.max-wait", "idworker.segment.redis.check-run-id",
                "idworker.segment.redis.coalesce", "idworker.segment.redis.prefetch-threshold",
                "idworker.segment.redis.max-in-flight",
                "idworker.serial.table", "idworker.serial.initialize-schema", "idworker.serial.rule-refresh",
                "idworker.serial.rules", "idworker.serial.redis.lock-ttl", "idworker.serial.redis.max-wait",
                "idworker.serial.redis.refill-cover", "idworker.serial.redis.check-run-id",
                "idworker.pool.table", "idworker.pool.initialize-schema", "idworker.pool.environment",
                "idworker.pool.environments", "idworker.pool.lock-ttl", "idworker.pool.scan-interval",
                "idworker.pool.max-refill", "idworker.pool.max-wait", "idworker.pool.entities");
    }

    @Test
    void everyHintNamesAPropertyAndItsValuesBind() throws Exception {
        JsonNode generated = read("META-INF/spring-configuration-metadata.json");
        Set<String> names = new HashSet<>();
        generated.get("properties").forEach(p -> names.add(p.get("name").asString()));
        JsonNode additional = read("META-INF/additional-spring-configuration-metadata.json");
        assertThat(additional.get("hints")).isNotEmpty();
        for (JsonNode hint : additional.get("hints")) {
            String name = hint.get("name").asString();
            assertThat(names).as("hint for an unknown property").contains(name);
            for (JsonNode value : hint.get("values")) {
                Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(name, value.get("value").asString())));
                IdWorkerProperties bound = binder.bind("idworker", IdWorkerProperties.class)
                        .orElseThrow(() -> new AssertionError(name + "=" + value + " did not bind"));
                assertThat(bound).isNotNull();
                assertThat(value.path("description").asString()).as(name + "=" + value).isNotBlank();
            }
        }
    }

    @Test
    void defaultsMatchTheCore() {
        IdWorkerProperties properties = new IdWorkerProperties();
        assertThat(properties.getSnowflake().getEpoch()).isEqualTo(SnowflakeLayout.DEFAULT_EPOCH);
        assertThat(properties.getSnowflake().getTimestampBits()).isEqualTo(SnowflakeLayout.DEFAULT_TIMESTAMP_BITS);
        assertThat(properties.getSnowflake().getWorkerBits()).isEqualTo(SnowflakeLayout.DEFAULT_WORKER_BITS);
        assertThat(properties.getSnowflake().getSequenceBits()).isEqualTo(SnowflakeLayout.DEFAULT_SEQUENCE_BITS);
        assertThat(properties.getLease().getLossGuard()).isEqualTo(WorkerOptions.DEFAULT_LOSS_GUARD);
        assertThat(properties.getJdbc().getTable()).isEqualTo(JdbcSequenceManager.DEFAULT_TABLE);
        assertThat(properties.getJdbc().getStatementTimeout()).isEqualTo(JdbcTimeouts.DEFAULT_STATEMENT_TIMEOUT);
        assertThat(properties.getJdbc().getNetworkTimeout()).isEqualTo(JdbcTimeouts.DEFAULT_NETWORK_TIMEOUT);
        assertThat(properties.getZookeeper().getBasePath()).isEqualTo(ZookeeperSequenceManager.DEFAULT_BASE_PATH);
        assertThat(properties.getZookeeper().getOperationTimeout())
                .isEqualTo(ZookeeperSequenceManager.DEFAULT_OPERATION_TIMEOUT);

        SegmentProperties segment = properties.getSegment();
        assertThat(segment.getTable()).isEqualTo(JdbcSegmentAllocator.DEFAULT_TABLE);
        assertThat(segment.getMinStep()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MIN_STEP);
        assertThat(segment.getMaxStep()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MAX_STEP);
        assertThat(segment.getPrefetchThreshold()).isEqualTo(SegmentGeneratorOptions.DEFAULT_PREFETCH_THRESHOLD);
        assertThat(segment.getTargetLifetime()).isEqualTo(SegmentGeneratorOptions.DEFAULT_TARGET_LIFETIME);
        assertThat(segment.getMaxWait()).isEqualTo(SegmentGeneratorOptions.DEFAULT_MAX_WAIT);
        SegmentRedisProperties redis = segment.getRedis();
        assertThat(redis.getStep()).isEqualTo(RedisSegmentOptions.DEFAULT_STEP);
        assertThat(redis.getMaxBatch()).isEqualTo(RedisSegmentOptions.DEFAULT_MAX_BATCH);
        assertThat(redis.getLockTtl()).isEqualTo(RedisSegmentOptions.DEFAULT_LOCK_TTL);
        assertThat(redis.getMaxWait()).isEqualTo(RedisSegmentOptions.DEFAULT_MAX_WAIT);
        assertThat(redis.isCheckRunId()).isEqualTo(RedisSegmentOptions.defaults().checkRunId());
        assertThat(redis.isCoalesce()).isEqualTo(RedisSegmentOptions.defaults().coalesce());
        assertThat(redis.getPrefetchThreshold()).isEqualTo(RedisSegmentOptions.DEFAULT_PREFETCH_THRESHOLD);
        assertThat(properties.getRedis().getKeyPrefix()).isEqualTo(RedisSegmentOptions.DEFAULT_KEY_PREFIX);

        SerialProperties serial = properties.getSerial();
        assertThat(serial.getTable()).isEqualTo(JdbcSerialStore.DEFAULT_TABLE);
        assertThat(serial.getRuleRefresh()).isEqualTo(SerialRules.DEFAULT_REFRESH);
        assertThat(serial.getInitializeSchema()).isEqualTo(segment.getInitializeSchema());
        SerialRedisProperties serialRedis = serial.getRedis();
        assertThat(serialRedis.getLockTtl()).isEqualTo(RedisSerialOptions.DEFAULT_LOCK_TTL);
        assertThat(serialRedis.getMaxWait()).isEqualTo(RedisSerialOptions.DEFAULT_MAX_WAIT);
        assertThat(serialRedis.getRefillCover()).isEqualTo(RedisSerialOptions.DEFAULT_REFILL_COVER);
        assertThat(serialRedis.isCheckRunId()).isEqualTo(RedisSerialOptions.defaults().checkRunId());
        assertThat(properties.getRedis().getKeyPrefix()).isEqualTo(RedisSerialOptions.DEFAULT_KEY_PREFIX);

        PoolProperties pool = properties.getPool();
        assertThat(pool.getTable()).isEqualTo(JdbcPoolStore.DEFAULT_TABLE);
        assertThat(pool.getInitializeSchema()).isEqualTo(serial.getInitializeSchema());
        RedisPoolOptions poolOptions = RedisPoolOptions.defaults();
        assertThat(new PoolEnvironment(pool.getEnvironment(), pool.getEnvironments())).isEqualTo(poolOptions.environment());
        assertThat(pool.getLockTtl()).isEqualTo(RedisPoolOptions.DEFAULT_LOCK_TTL);
        assertThat(pool.getScanInterval()).isEqualTo(RedisPoolOptions.DEFAULT_SCAN_INTERVAL);
        assertThat(pool.getMaxRefill()).isEqualTo(RedisPoolOptions.DEFAULT_MAX_REFILL);
        assertThat(properties.getRedis().getKeyPrefix()).isEqualTo(RedisPoolOptions.DEFAULT_KEY_PREFIX);
        PoolEntityProperties entity = new PoolEntityProperties();
        assertThat(entity.getType()).isEqualTo(IncreasingType.MONOTONIC);
        assertThat(entity.getStartOffset()).isEqualTo(PoolEntity.DEFAULT_START_OFFSET);
        assertThat(entity.getStep()).isEqualTo(PoolEntity.DEFAULT_STEP);
        assertThat(entity.getMaxPerRequest()).isEqualTo(PoolEntity.DEFAULT_MAX_PER_REQUEST);
        assertThat(entity.getMaxPerSecond()).isEqualTo(PoolEntity.DEFAULT_MAX_PER_SECOND);
        assertThat(entity.getThresholdPercent()).isEqualTo(PoolEntity.DEFAULT_THRESHOLD_PERCENT);
        assertThat(entity.getCheckInterval()).isEqualTo(PoolEntity.DEFAULT_CHECK_INTERVAL);
        assertThat(entity.getMaxPoolSize()).as("60 × max-per-second, left to the core").isNull();
        assertThat(entity.getMaxGap()).isZero();
        // an entity of nothing but defaults is the core's default entity
        assertThat(IdPoolsConfig.entity("users", entity)).isEqualTo(PoolEntity.builder("users").build());
    }

    /**
     * An entity's fields sit in a map's values, where the metadata format has no place for hints; {@code type} is
     * typed {@link IncreasingType} so IDEs offer its values, and each binds in lower case too; durations bind in
     * Boot's units.
     */
    @Test
    void everyPoolEntityFieldBinds() {
        for (IncreasingType type : IncreasingType.values()) {
            String p = "idworker.pool.entities.users.";
            Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(p + "type",
                    type.name().toLowerCase(Locale.ROOT), p + "check-interval", "250ms",
                    p + "max-pool-size", "8000", p + "name", "User IDs")));
            PoolEntityProperties users = binder.bind("idworker", IdWorkerProperties.class).get()
                    .getPool().getEntities().get("users");
            assertThat(users.getType()).isEqualTo(type);
            assertThat(users.getCheckInterval()).isEqualTo(Duration.ofMillis(250));
            assertThat(users.getMaxPoolSize()).isEqualTo(8000L);
            assertThat(users.getName()).isEqualTo("User IDs");
        }
    }

    /**
     * A rule's fields sit in a map's values, where the metadata format has no place for hints; {@code reset} is
     * typed {@link SerialReset} so IDEs offer its values, and each binds in the lower case the docs use.
     */
    @Test
    void everyResetValueBindsInLowerCase() {
        for (SerialReset reset : SerialReset.values()) {
            Binder binder = new Binder(new MapConfigurationPropertySource(Map.of(
                    "idworker.serial.rules.order.reset", reset.propertyValue(), "idworker.serial.rules.order.width", "6")));
            IdWorkerProperties bound = binder.bind("idworker", IdWorkerProperties.class).get();
            assertThat(bound.getSerial().getRules().get("order").getReset()).isEqualTo(reset);
        }
    }

    /** The metadata states the same defaults, so an IDE shows what the starter really does. */
    @Test
    void generatedDefaultsOfTheSegmentSerialAndPoolPropertiesAreStated() throws Exception {
        JsonNode generated = read("META-INF/spring-configuration-metadata.json");
        Map<String, String> defaults = new HashMap<>();
        for (JsonNode property : generated.get("properties")) {
            if (property.has("defaultValue")) {
                defaults.put(property.get("name").asString(), property.get("defaultValue").asString());
            }
        }
        assertThat(defaults).containsEntry("idworker.segment.table", "idworker_segment")
                .containsEntry("idworker.segment.min-step", "1000")
                .containsEntry("idworker.segment.max-step", "1000000")
                .containsEntry("idworker.segment.max-wait", "3s")
                .containsEntry("idworker.segment.target-lifetime", "15m")
                .containsEntry("idworker.segment.min-load-lifetime", "1s")
                .containsEntry("idworker.segment.max-steps-per-load", "10000")
                .containsEntry("idworker.segment.initialize-schema", "embedded")
                .containsEntry("idworker.segment.redis.step", "1000")
                .containsEntry("idworker.segment.redis.lock-ttl", "10s")
                .containsEntry("idworker.jdbc.statement-timeout", "2s")
                .containsEntry("idworker.jdbc.network-timeout", "5s")
                .containsEntry("idworker.serial.table", "idworker_serial_rule")
                .containsEntry("idworker.serial.initialize-schema", "embedded")
                .containsEntry("idworker.serial.rule-refresh", "30s")
                .containsEntry("idworker.serial.redis.lock-ttl", "10s")
                .containsEntry("idworker.serial.redis.max-wait", "3s")
                .containsEntry("idworker.serial.redis.refill-cover", "5m")
                .containsEntry("idworker.serial.redis.check-run-id", "true")
                .containsEntry("idworker.pool.table", "idworker_id_pool")
                .containsEntry("idworker.pool.initialize-schema", "embedded")
                .containsEntry("idworker.pool.environment", "0")
                .containsEntry("idworker.pool.environments", "1")
                .containsEntry("idworker.pool.lock-ttl", "30s")
                .containsEntry("idworker.pool.scan-interval", "10s")
                .containsEntry("idworker.pool.max-refill", "1000000")
                .containsEntry("idworker.pool.max-wait", "1s");
    }
}
