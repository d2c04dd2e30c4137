package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.jdbc.JdbcSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.util.HashSet;
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
                "idworker.lease.heartbeat-interval", "idworker.lease.max-skew", "idworker.lease.fence-wait",
                "idworker.jdbc.table", "idworker.jdbc.initialize-schema", "idworker.redis.key-prefix");
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
        assertThat(properties.getJdbc().getTable()).isEqualTo(JdbcSequenceManager.DEFAULT_TABLE);
    }
}
