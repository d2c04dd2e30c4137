package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * ID pools, used with {@code @EnableIdPools}: entities registered in a pool table at startup (the table is the
 * source of truth), IDs waiting in one Redis list per entity, refilled by every node from offsets reserved in
 * the table. Keys share "idworker.redis.key-prefix".
 * Bound to {@code idworker.pool.*}.
 */
public class PoolProperties {

    /**
     * Name of the pool table, optionally schema-qualified.
     */
    private String table = "idworker_id_pool";

    /**
     * When to create the pool table at startup if it is missing.
     */
    private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

    /**
     * Number of this deployment among "environments": it hands out only IDs with id mod environments =
     * environment, so independent deployments (each with its own Redis and database) never collide. From 0 to
     * environments - 1; an entity's row is pinned to the split that first used it.
     */
    private int environment = 0;

    /**
     * Number of independent deployments sharing the ID space, 1 to 1024.
     */
    private int environments = 1;

    /**
     * How long a refill lock lives when its owner dies before releasing it; longer than a database reservation
     * and an append take. From 100ms to 10m.
     */
    private Duration lockTtl = Duration.ofSeconds(30);

    /**
     * Time between two reads of the whole pool table, which pick up entities operators inserted or deleted.
     * From 10ms to 1h.
     */
    private Duration scanInterval = Duration.ofSeconds(10);

    /**
     * Most IDs one refill reserves and appends; the next check adds more. From 1 to 10000000.
     */
    private int maxRefill = 1000000;

    /**
     * Longest one take waits in all, whatever the Redis client's socket timeout and retries: for Redis's
     * answer, and on an entity's first take on this node for its check against the pool table; then the take
     * fails (PoolTimeoutException, HTTP 503 in the ID service). IDs of a take Redis still runs after that are
     * lost, never handed out. From 1ms to 10m.
     */
    private Duration maxWait = Duration.ofSeconds(1);

    /**
     * Entities registered in the pool table at startup, by entity key (1 to 64 letters, digits, '_', '-' or
     * '.'; write a key with a '.' in brackets, "entities[orders.v2]"). An entity the table already holds keeps
     * the table's values; differences are logged.
     */
    private Map<String, PoolEntityProperties> entities = new LinkedHashMap<>();

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

    public int getEnvironment() {
        return this.environment;
    }

    public void setEnvironment(int environment) {
        this.environment = environment;
    }

    public int getEnvironments() {
        return this.environments;
    }

    public void setEnvironments(int environments) {
        this.environments = environments;
    }

    public Duration getLockTtl() {
        return this.lockTtl;
    }

    public void setLockTtl(Duration lockTtl) {
        this.lockTtl = lockTtl;
    }

    public Duration getScanInterval() {
        return this.scanInterval;
    }

    public void setScanInterval(Duration scanInterval) {
        this.scanInterval = scanInterval;
    }

    public int getMaxRefill() {
        return this.maxRefill;
    }

    public void setMaxRefill(int maxRefill) {
        this.maxRefill = maxRefill;
    }

    public Duration getMaxWait() {
        return this.maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public Map<String, PoolEntityProperties> getEntities() {
        return this.entities;
    }

    public void setEntities(Map<String, PoolEntityProperties> entities) {
        this.entities = entities;
    }
}
