package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.time.Instant;

/**
 * Configuration properties of the snowflake workers {@link io.github.idworker.spring.annotation.EnableIdWorker}
 * registers. Values are checked when the worker is built; a value idworker cannot run with safely fails the
 * startup with a message naming the property.
 */
@ConfigurationProperties(prefix = IdWorkerProperties.PREFIX)
public class IdWorkerProperties {

    public static final String PREFIX = "idworker";

    /**
     * Id space the worker leases its worker id in; workers of different namespaces may issue the same ids.
     * Defaults to "spring.application.name" when set, otherwise "default".
     */
    private String namespace;

    /** Bit layout of the ids and how the worker treats its clock. */
    private final Snowflake snowflake = new Snowflake();

    /** Lease of the worker id. */
    private final Lease lease = new Lease();

    /** JDBC centre. */
    private final Jdbc jdbc = new Jdbc();

    /** Redis centre. */
    private final Redis redis = new Redis();

    public String getNamespace() {
        return this.namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Snowflake getSnowflake() {
        return this.snowflake;
    }

    public Lease getLease() {
        return this.lease;
    }

    public Jdbc getJdbc() {
        return this.jdbc;
    }

    public Redis getRedis() {
        return this.redis;
    }

    /** Bit layout of the ids and how the worker treats its clock. */
    public static class Snowflake {

        /**
         * Instant timestamp zero stands for, as an ISO-8601 instant; 2025-01-01T00:00:00Z by default. Must not
         * be in the future; changing it on a running system can reissue ids.
         */
        private Instant epoch = SnowflakeLayout.DEFAULT_EPOCH;

        /**
         * Number of bits holding milliseconds since the epoch; together with the epoch it decides when the
         * layout runs out of time.
         */
        private int timestampBits = 41;

        /**
         * Number of bits holding the worker id; 2^worker-bits workers may run at once in a namespace.
         */
        private int workerBits = 10;

        /**
         * Number of bits holding the sequence within one millisecond; 2^sequence-bits ids per millisecond
         * per worker.
         */
        private int sequenceBits = 12;

        /**
         * Largest backward step of the clock the worker waits out; a larger step moves it to another worker
         * id or fails, as "on-large-backward-step" says.
         */
        private Duration maxBackward = Duration.ofMillis(10);

        /**
         * What the worker does when the clock steps back further than "max-backward".
         */
        private BackwardsPolicy onLargeBackwardStep = BackwardsPolicy.SWITCH_WORKER;

        /**
         * Clock the worker reads.
         */
        private Clock clock = Clock.SYSTEM;

        public Instant getEpoch() {
            return this.epoch;
        }

        public void setEpoch(Instant epoch) {
            this.epoch = epoch;
        }

        public int getTimestampBits() {
            return this.timestampBits;
        }

        public void setTimestampBits(int timestampBits) {
            this.timestampBits = timestampBits;
        }

        public int getWorkerBits() {
            return this.workerBits;
        }

        public void setWorkerBits(int workerBits) {
            this.workerBits = workerBits;
        }

        public int getSequenceBits() {
            return this.sequenceBits;
        }

        public void setSequenceBits(int sequenceBits) {
            this.sequenceBits = sequenceBits;
        }

        public Duration getMaxBackward() {
            return this.maxBackward;
        }

        public void setMaxBackward(Duration maxBackward) {
            this.maxBackward = maxBackward;
        }

        public BackwardsPolicy getOnLargeBackwardStep() {
            return this.onLargeBackwardStep;
        }

        public void setOnLargeBackwardStep(BackwardsPolicy onLargeBackwardStep) {
            this.onLargeBackwardStep = onLargeBackwardStep;
        }

        public Clock getClock() {
            return this.clock;
        }

        public void setClock(Clock clock) {
            this.clock = clock;
        }
    }

    /** Clock a worker reads. */
    public enum Clock {

        /** System clock, read on every id. */
        SYSTEM,

        /** Cached clock refreshed by one daemon thread every half millisecond; cheaper to read under load. */
        TICKING
    }

    /** Lease of the worker id. */
    public static class Lease {

        /**
         * How long a lease lives in the centre's time unless renewed; a crashed worker's id is free again
         * after it. Also how far ahead of the clock the worker may issue before it must renew.
         */
        private Duration ttl = Duration.ofSeconds(15);

        /**
         * Time between two renewals. Defaults to a third of the ttl; at most half of it.
         */
        private Duration heartbeatInterval;

        /**
         * Largest clock difference tolerated between the workers and the centre.
         */
        private Duration maxSkew = Duration.ofSeconds(1);

        /**
         * How long a caller waits for a renewal when the worker reached the end of its lease, before it gets a
         * LeaseLostException.
         */
        private Duration fenceWait = Duration.ofSeconds(2);

        public Duration getTtl() {
            return this.ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public Duration getHeartbeatInterval() {
            return this.heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Duration getMaxSkew() {
            return this.maxSkew;
        }

        public void setMaxSkew(Duration maxSkew) {
            this.maxSkew = maxSkew;
        }

        public Duration getFenceWait() {
            return this.fenceWait;
        }

        public void setFenceWait(Duration fenceWait) {
            this.fenceWait = fenceWait;
        }
    }

    /** JDBC centre, used with {@code @EnableIdWorker(mode = CenterMode.DB)}. */
    public static class Jdbc {

        /**
         * Name of the lease table, optionally schema-qualified.
         */
        private String table = "idworker_worker_slot";

        /**
         * When to create the lease table at startup if it is missing.
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

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
    }

    /** When the lease table is created at startup. */
    public enum SchemaInitialization {

        /** Always create it when it is missing. */
        ALWAYS,

        /** Create it when it is missing and the database is an embedded one (H2). */
        EMBEDDED,

        /** Never create it; startup fails when it is missing. */
        NEVER
    }

    /** Redis centre, used with {@code @EnableIdWorker(mode = CenterMode.REDIS)}. */
    public static class Redis {

        /**
         * Prefix of the Redis keys; a namespace's keys share the hash tag "{prefix:namespace}".
         */
        private String keyPrefix = "idworker";

        public String getKeyPrefix() {
            return this.keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }
}
