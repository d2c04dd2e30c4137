package io.github.idworker.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * IDs filled into entities on insert by the MyBatis interceptor, the Spring Data JDBC callback and the Hibernate
 * generators (docs/entity-ids.md). Bound to {@code idworker.entity-ids.*}.
 */
public class EntityIdsProperties {

    /**
     * Whether to fill empty ID fields of entities on insert, through each of MyBatis, Spring Data JDBC and
     * Hibernate that is on the class path.
     */
    private boolean enabled = true;

    /**
     * ID fields of classes the application cannot annotate with @GeneratedId, by class and field name, each with
     * its ID source: "snowflake", "segment:<tag>", "sequence:<tag>" or an IdGenerator bean's name. Keys contain
     * dots, so write them in brackets, for example idworker.entity-ids.fields[com.example.Order.id]=segment:order.
     * Read by the MyBatis interceptor and the Spring Data JDBC callback; wins over @GeneratedId on the same field.
     */
    private Map<String, String> fields = new LinkedHashMap<>();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, String> getFields() {
        return this.fields;
    }

    public void setFields(Map<String, String> fields) {
        this.fields = fields;
    }
}
