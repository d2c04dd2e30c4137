package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Serial numbers, used with {@code @EnableSerialNumbers}: rules registered in a rule table at startup (the
 * table is the source of truth), numbers handed out from Redis ({@code SerialMode.STRICT}) or in process
 * ({@code SerialMode.LOCAL}) above a durable high-water per rule and period.
 * Bound to {@code idworker.serial.*}.
 */
public class SerialProperties {

    /**
     * Name of the serial rule table, optionally schema-qualified; the high-water table beside it is named with
     * "_period" appended.
     */
    private String table = "idworker_serial_rule";

    /**
     * When to create the serial tables at startup if they are missing.
     */
    private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

    /**
     * How long a rule read from the rule table is used before it is read again; a rule an operator tunes in
     * the table is picked up within this time. At least 1ms.
     */
    private Duration ruleRefresh = Duration.ofSeconds(30);

    /** Strict serial numbers (Redis). */
    @NestedConfigurationProperty
    private final SerialRedisProperties redis = new SerialRedisProperties();

    /**
     * Rules registered in the rule table at startup, by rule name (letters, digits, '_' and '-', at most 64).
     * A rule the table already holds keeps the table's values; one whose prefix, date-pattern, width, reset
     * or zone differs from the table's fails the startup.
     */
    private Map<String, SerialRuleProperties> rules = new LinkedHashMap<>();

    public String getTable() {
        return this.table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public SchemaInitialization getInitializeSchema() {
        return this.initializeSchema;
    }

    public void setInitializeSchema(SchemaInitialization initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public Duration getRuleRefresh() {
        return this.ruleRefresh;
    }

    public void setRuleRefresh(Duration ruleRefresh) {
        this.ruleRefresh = ruleRefresh;
    }

    public SerialRedisProperties getRedis() {
        return this.redis;
    }

    public Map<String, SerialRuleProperties> getRules() {
        return this.rules;
    }

    public void setRules(Map<String, SerialRuleProperties> rules) {
        this.rules = rules;
    }
}
