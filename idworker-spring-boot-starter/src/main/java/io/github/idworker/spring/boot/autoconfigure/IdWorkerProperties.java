package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.springframework.boot.context.properties.ConfigurationProperties;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration properties of the snowflake workers {@link io.github.idworker.spring.annotation.EnableIdWorker}
 * registers, of the segment generators {@link io.github.idworker.spring.annotation.EnableSegmentIdGenerators}
 * registers, of the serial numbers {@link io.github.idworker.spring.annotation.EnableSerialNumbers} registers and
 * of the ID pools {@link io.github.idworker.spring.annotation.EnableIdPools} registers.
 * Values are checked when the worker or generator is built; a value idworker cannot run with safely
 * fails the startup with a message naming the property.
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

    /** ZooKeeper centre. */
    private final Zookeeper zookeeper = new Zookeeper();

    /** Segment mode: dense increasing numbers per business tag. */
    private final Segment segment = new Segment();

    /** Serial numbers: strings of a prefix, a date and a zero-padded number per named rule. */
    private final Serial serial = new Serial();

    /** ID pools: per-entity pools of IDs in Redis, refilled from a durable offset in the database. */
    private final Pool pool = new Pool();

    /** Micrometer meters of the generators. */
    private final Metrics metrics = new Metrics();

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

    public Zookeeper getZookeeper() {
        return this.zookeeper;
    }

    public Segment getSegment() {
        return this.segment;
    }

    public Serial getSerial() {
        return this.serial;
    }

    public Pool getPool() {
        return this.pool;
    }

    public Metrics getMetrics() {
        return this.metrics;
    }

    /** Micrometer meters of the generators: how many generators of one mode get meters. */
    public static class Metrics {

        /**
         * Most segment tags, sequences, serial rules and pools (each mode counted on its own) that get meters;
         * further ones get none and one warning names this property. Tags come from callers (with
         * auto-create, any string), so the cap bounds the meters a registry holds. Must be greater than 0.
         */
        private int maxTags = 100;

        public int getMaxTags() {
            return this.maxTags;
        }

        public void setMaxTags(int maxTags) {
            this.maxTags = maxTags;
        }
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
         * Clock the worker reads: only "system", read on every id. Kept so that configurations setting it still
         * bind; the cached "ticking" clock was removed because it cannot beat the system clock at a worker's cap
         * of 2^sequence-bits ids per millisecond, and setting it now fails the startup.
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

    /**
     * Clock a worker reads. One value only, kept for configuration compatibility: a value that is not listed
     * (such as the removed {@code ticking}) fails the binding of {@code idworker.snowflake.clock} at startup, and
     * Spring Boot's report names the property and lists the valid values.
     */
    public enum Clock {

        /** System clock, {@link System#currentTimeMillis()}, read on every id. */
        SYSTEM
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
         * How far above its clock the centre sets every worker id's floor after it lost the namespace's data (a
         * Redis restart without persistence, a wiped table); also how long the first borrow of a new namespace
         * waits. Must be at least ttl + max-skew, and the same on every instance of the namespace: the centre
         * refuses a smaller one than it keeps, but cannot tell after a loss. Never lower it for a namespace; use a
         * new idworker.namespace instead.
         */
        private Duration lossGuard = Duration.ofSeconds(30);

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

        public Duration getLossGuard() {
            return this.lossGuard;
        }

        public void setLossGuard(Duration lossGuard) {
            this.lossGuard = lossGuard;
        }

        public Duration getFenceWait() {
            return this.fenceWait;
        }

        public void setFenceWait(Duration fenceWait) {
            this.fenceWait = fenceWait;
        }
    }

    /**
     * JDBC centre, used with {@code @EnableIdWorker(mode = CenterMode.DB)}; its timeouts also bound the segment
     * allocator of {@code @EnableSegmentIdGenerators}.
     */
    public static class Jdbc {

        /**
         * Name of the lease table, optionally schema-qualified; the namespace table beside it is named with "_ns"
         * appended.
         */
        private String table = "idworker_worker_slot";

        /**
         * When to create the lease tables at startup if they are missing.
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

        /**
         * Longest a statement of the lease centre or the segment allocator may run, a wait for a row locked by
         * another session included, before the database cancels it; whole seconds, at least 1s, and shorter
         * than "idworker.lease.heartbeat-interval", so a renewal that hangs is given up and retried before the
         * lease runs out.
         */
        private Duration statementTimeout = Duration.ofSeconds(2);

        /**
         * Longest the driver waits for any answer of the database (a blackholed connection, a failover in
         * progress) before it gives the connection up; longer than "statement-timeout".
         */
        private Duration networkTimeout = Duration.ofSeconds(5);

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

        public Duration getStatementTimeout() {
            return this.statementTimeout;
        }

        public void setStatementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
        }

        public Duration getNetworkTimeout() {
            return this.networkTimeout;
        }

        public void setNetworkTimeout(Duration networkTimeout) {
            this.networkTimeout = networkTimeout;
        }
    }

    /**
     * When the lease tables, the segment table, the serial tables, the pool table or the application table are
     * created at startup; {@code EMBEDDED} means what it means for {@code spring.sql.init.mode}.
     */
    public enum SchemaInitialization {

        /** Always create it when it is missing. */
        ALWAYS,

        /**
         * Create it when it is missing and Spring Boot considers the DataSource embedded (an in-memory H2, HSQLDB
         * or Derby, as for "spring.sql.init.mode=embedded"); a file-based H2 or a database server is not.
         */
        EMBEDDED,

        /** Never create it; startup fails when it is missing. */
        NEVER;

        /** Whether missing tables are created in {@code dataSource}. */
        public boolean creates(DataSource dataSource) {
            return switch (this) {
                case ALWAYS -> true;
                case EMBEDDED -> EmbeddedDatabases.isEmbedded(dataSource);
                case NEVER -> false;
            };
        }
    }

    /**
     * Redis centre, used with {@code @EnableIdWorker(mode = CenterMode.REDIS)}, and the keys of the Redis
     * sequences of {@code @EnableSegmentIdGenerators(redisSequences = true)}.
     */
    public static class Redis {

        /**
         * Prefix of the Redis keys; a namespace's keys share the hash tag "{prefix:namespace}", a Redis sequence's
         * keys the hash tag "{prefix:segment:tag}", an ID pool's keys the hash tag "{prefix:pool:entity}".
         */
        private String keyPrefix = "idworker";

        public String getKeyPrefix() {
            return this.keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }

    /**
     * ZooKeeper centre, used with {@code @EnableIdWorker(mode = CenterMode.ZOOKEEPER)}. The application's
     * {@code CuratorFramework} bean is used when it has exactly one; otherwise idworker builds a client of its own
     * from the connection settings here and closes it with the context.
     */
    public static class Zookeeper {

        /**
         * Connection string of the ensemble, e.g. "zk1:2181,zk2:2181,zk3:2181"; needed only when the application
         * has no CuratorFramework bean.
         */
        private String connectString;

        /**
         * Absolute znode path under which idworker keeps its namespaces; below the Curator namespace of the
         * application's client, if it has one.
         */
        private String basePath = "/idworker";

        /**
         * Session timeout idworker's own client asks for (the server keeps it between 2 and 20 ticks). A session
         * that ends frees its worker ids for others at once; it never lets a worker issue past its stored
         * high-water.
         */
        private Duration sessionTimeout = Duration.ofSeconds(15);

        /**
         * How long idworker's own client waits for a connection to the ensemble.
         */
        private Duration connectionTimeout = Duration.ofSeconds(5);

        /**
         * Longest time one lease call (borrow, renewal, return) may take, waiting for a connection included. Must
         * be shorter than idworker.lease.heartbeat-interval.
         */
        private Duration operationTimeout = Duration.ofSeconds(3);

        /** Retries of idworker's own client for Curator's operations; lease calls are bounded by operation-timeout. */
        private final ZookeeperRetry retry = new ZookeeperRetry();

        public String getConnectString() {
            return this.connectString;
        }

        public void setConnectString(String connectString) {
            this.connectString = connectString;
        }

        public String getBasePath() {
            return this.basePath;
        }

        public void setBasePath(String basePath) {
            this.basePath = basePath;
        }

        public Duration getSessionTimeout() {
            return this.sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectionTimeout() {
            return this.connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }

        public Duration getOperationTimeout() {
            return this.operationTimeout;
        }

        public void setOperationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
        }

        public ZookeeperRetry getRetry() {
            return this.retry;
        }
    }

    /** Exponential back-off of idworker's own ZooKeeper client. */
    public static class ZookeeperRetry {

        /**
         * Sleep before the first retry, doubled for each further one.
         */
        private Duration baseSleep = Duration.ofMillis(100);

        /**
         * Most retries of one operation.
         */
        private int maxRetries = 3;

        public Duration getBaseSleep() {
            return this.baseSleep;
        }

        public void setBaseSleep(Duration baseSleep) {
            this.baseSleep = baseSleep;
        }

        public int getMaxRetries() {
            return this.maxRetries;
        }

        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }
    }

    /**
     * Segment mode, used with {@code @EnableSegmentIdGenerators}: ranges of numbers per business tag from one
     * table row per tag, handed out in process ({@code segmentIdGenerators}) or through Redis in strict order
     * ({@code redisSequenceGenerators}).
     */
    public static class Segment {

        /**
         * Name of the segment table, optionally schema-qualified.
         */
        private String table = "idworker_segment";

        /**
         * Whether a tag that is not in the segment table is created on first use (numbering from 1). When off,
         * an unknown tag fails with UnknownSegmentTagException; register tags under "tags" or in the table.
         */
        private boolean autoCreate = false;

        /**
         * When to create the segment table at startup if it is missing.
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

        /**
         * Tags registered in the segment table at startup, by tag name. A tag that already exists is left
         * exactly as it is.
         */
        private Map<String, Tag> tags = new LinkedHashMap<>();

        /**
         * Smallest range an in-process generator takes from the table.
         */
        private int minStep = 1000;

        /**
         * Largest range an in-process generator takes from the table; also bounds the numbers a restart skips
         * (at most two ranges).
         */
        private int maxStep = 1000000;

        /**
         * Size of an in-process generator's first range after start, between "min-step" and "max-step".
         * Defaults to "min-step".
         */
        private Integer initialStep;

        /**
         * Share of a range an in-process generator hands out before it loads the next one in the background;
         * above 0 and below 1. The load starts at the checkpoint at or just below it (a multiple of 1024 numbers,
         * or of a smaller power of two in small ranges).
         */
        private double prefetchThreshold = 0.2;

        /**
         * How long one in-process range should last at the measured demand; the step adapts towards it within
         * "min-step" and "max-step".
         */
        private Duration targetLifetime = Duration.ofMinutes(15);

        /**
         * Longest a caller of an in-process generator waits when both of its ranges are used up, before it gets
         * SegmentRefillTimeoutException.
         */
        private Duration maxWait = Duration.ofSeconds(3);

        /**
         * How long one load of an in-process generator should last at the measured demand: when one step would
         * run out sooner, a load reserves as many whole steps in one allocation as that demand consumes in this
         * time (growing at most four times per load), so range switches stay rare at any step. A restart skips the
         * unused rest of at most two loads.
         */
        private Duration minLoadLifetime = Duration.ofSeconds(1);

        /**
         * Most whole steps one load of an in-process generator reserves; 1 loads exactly one step at a time (the
         * table advances by the step, a restart skips at most two steps, every step costs a range switch).
         */
        private int maxStepsPerLoad = 10_000;

        /** Redis sequence generators (strictly ordered across nodes). */
        private final SegmentRedis redis = new SegmentRedis();

        public String getTable() {
            return this.table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public boolean isAutoCreate() {
            return this.autoCreate;
        }

        public void setAutoCreate(boolean autoCreate) {
            this.autoCreate = autoCreate;
        }

        public SchemaInitialization getInitializeSchema() {
            return this.initializeSchema;
        }

        public void setInitializeSchema(SchemaInitialization initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Map<String, Tag> getTags() {
            return this.tags;
        }

        public void setTags(Map<String, Tag> tags) {
            this.tags = tags;
        }

        public int getMinStep() {
            return this.minStep;
        }

        public void setMinStep(int minStep) {
            this.minStep = minStep;
        }

        public int getMaxStep() {
            return this.maxStep;
        }

        public void setMaxStep(int maxStep) {
            this.maxStep = maxStep;
        }

        public Integer getInitialStep() {
            return this.initialStep;
        }

        public void setInitialStep(Integer initialStep) {
            this.initialStep = initialStep;
        }

        public double getPrefetchThreshold() {
            return this.prefetchThreshold;
        }

        public void setPrefetchThreshold(double prefetchThreshold) {
            this.prefetchThreshold = prefetchThreshold;
        }

        public Duration getTargetLifetime() {
            return this.targetLifetime;
        }

        public void setTargetLifetime(Duration targetLifetime) {
            this.targetLifetime = targetLifetime;
        }

        public Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public Duration getMinLoadLifetime() {
            return this.minLoadLifetime;
        }

        public void setMinLoadLifetime(Duration minLoadLifetime) {
            this.minLoadLifetime = minLoadLifetime;
        }

        public int getMaxStepsPerLoad() {
            return this.maxStepsPerLoad;
        }

        public void setMaxStepsPerLoad(int maxStepsPerLoad) {
            this.maxStepsPerLoad = maxStepsPerLoad;
        }

        public SegmentRedis getRedis() {
            return this.redis;
        }
    }

    /** One tag registered at startup. */
    public static class Tag {

        /**
         * Number the tag starts after: its first number is one above it. Ignored when the tag already exists.
         */
        private long startAfter = 0;

        /**
         * Step recorded with the tag for operators; generators choose their own. Defaults to
         * "idworker.segment.min-step".
         */
        private Integer step;

        /**
         * Description recorded with the tag for operators, at most 256 characters.
         */
        private String description;

        public long getStartAfter() {
            return this.startAfter;
        }

        public void setStartAfter(long startAfter) {
            this.startAfter = startAfter;
        }

        public Integer getStep() {
            return this.step;
        }

        public void setStep(Integer step) {
            this.step = step;
        }

        public String getDescription() {
            return this.description;
        }

        public void setDescription(String description) {
            this.description = description;
        }
    }

    /** Redis sequence generators, used with {@code @EnableSegmentIdGenerators(redisSequences = true)}. */
    public static class SegmentRedis {

        /**
         * Numbers a Redis sequence takes from the segment table per refill; a batch larger than the step takes
         * a range of its own size.
         */
        private int step = 1000;

        /**
         * Largest number of ids one nextIds call of a Redis sequence may ask for.
         */
        private int maxBatch = 100000;

        /**
         * How long a refill lock lives when its owner dies before releasing it; longer than a database
         * allocation takes. At least 100ms.
         */
        private Duration lockTtl = Duration.ofSeconds(10);

        /**
         * Longest a call of a Redis sequence waits for a refill, before it gets SegmentRefillTimeoutException.
         */
        private Duration maxWait = Duration.ofSeconds(3);

        /**
         * Whether every call refuses a range installed by another Redis process (a restart that restored an old
         * snapshot, a failover to a lagging replica) and refills above the table's max_id instead. Costs one
         * INFO call inside the script; switch it off only for Redis without persistence and replicas.
         */
        private boolean checkRunId = true;

        /**
         * Whether concurrent calls of one Redis sequence in this process share one Redis call while another is in
         * flight; numbers are still handed out in arrival order, and the check-run-id runs on every shared call.
         */
        private boolean coalesce = true;

        /**
         * Most Redis calls of one coalescing sequence in flight at once, 1 to 64: up to this many callers go
         * straight to Redis, further callers queue and share the next call. 2 keeps two callers from queueing
         * behind each other; first come, first served holds for any value.
         */
        private int maxInFlight = 2;

        /**
         * Share of a Redis sequence's range used when the next range is installed ahead of it in Redis, in the
         * background, so that callers never wait for the database; above 0, at most 1 (1 installs none ahead).
         */
        private double prefetchThreshold = 0.2;

        public int getStep() {
            return this.step;
        }

        public void setStep(int step) {
            this.step = step;
        }

        public int getMaxBatch() {
            return this.maxBatch;
        }

        public void setMaxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
        }

        public Duration getLockTtl() {
            return this.lockTtl;
        }

        public void setLockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
        }

        public Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public boolean isCheckRunId() {
            return this.checkRunId;
        }

        public void setCheckRunId(boolean checkRunId) {
            this.checkRunId = checkRunId;
        }

        public boolean isCoalesce() {
            return this.coalesce;
        }

        public int getMaxInFlight() {
            return this.maxInFlight;
        }

        public void setMaxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public void setCoalesce(boolean coalesce) {
            this.coalesce = coalesce;
        }

        public double getPrefetchThreshold() {
            return this.prefetchThreshold;
        }

        public void setPrefetchThreshold(double prefetchThreshold) {
            this.prefetchThreshold = prefetchThreshold;
        }
    }

    /**
     * Serial numbers, used with {@code @EnableSerialNumbers}: rules registered in a rule table at startup (the
     * table is the source of truth), numbers handed out from Redis ({@code SerialMode.STRICT}) or in process
     * ({@code SerialMode.LOCAL}) above a durable high-water per rule and period.
     */
    public static class Serial {

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
        private final SerialRedis redis = new SerialRedis();

        /**
         * Rules registered in the rule table at startup, by rule name (letters, digits, '_' and '-', at most 64).
         * A rule the table already holds keeps the table's values; one whose prefix, date-pattern, width, reset
         * or zone differs from the table's fails the startup.
         */
        private Map<String, Rule> rules = new LinkedHashMap<>();

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

        public SerialRedis getRedis() {
            return this.redis;
        }

        public Map<String, Rule> getRules() {
            return this.rules;
        }

        public void setRules(Map<String, Rule> rules) {
            this.rules = rules;
        }
    }

    /** Strict serial numbers, used with {@code @EnableSerialNumbers(mode = SerialMode.STRICT)}. */
    public static class SerialRedis {

        /**
         * How long a refill lock lives when its owner dies before releasing it; longer than a database
         * reservation takes.
         */
        private Duration lockTtl = Duration.ofSeconds(10);

        /**
         * Longest a call waits for a refill when the stock of its rule is empty, before it fails.
         */
        private Duration maxWait = Duration.ofSeconds(3);

        /**
         * How much time of measured demand one refill holds, within the rule's "min-batch" and "max-batch".
         */
        private Duration refillCover = Duration.ofMinutes(5);

        /**
         * Whether every take refuses a stock installed by another Redis process (a restart that restored an old
         * snapshot, a failover to a lagging replica) and refills above the database's high-water instead. Switch
         * it off only for Redis without persistence and replicas.
         */
        private boolean checkRunId = true;

        public Duration getLockTtl() {
            return this.lockTtl;
        }

        public void setLockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
        }

        public Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public Duration getRefillCover() {
            return this.refillCover;
        }

        public void setRefillCover(Duration refillCover) {
            this.refillCover = refillCover;
        }

        public boolean isCheckRunId() {
            return this.checkRunId;
        }

        public void setCheckRunId(boolean checkRunId) {
            this.checkRunId = checkRunId;
        }
    }

    /**
     * One serial rule registered at startup: strings {@code prefix + date + number}, e.g. prefix "ORD",
     * date-pattern "yyyyMMdd" and width 6 give "ORD20261123000042". Unset values take the defaults named.
     */
    public static class Rule {

        /**
         * Text before the date: at most 32 letters, digits, '_' or '-'; none by default.
         */
        private String prefix;

        /**
         * Pattern of the date after the prefix, made of "yyyy", "MM" and "dd" (each at most once), or "none"; no
         * date by default.
         */
        private String datePattern;

        /**
         * Digits of the zero-padded number, 1 to 15; required.
         */
        private Integer width;

        /**
         * First number of every period. Defaults to 1.
         */
        private Long start;

        /**
         * Last number of every period; nothing is handed out past it. Defaults to the largest number of "width"
         * digits.
         */
        private Long max;

        /**
         * When the number starts again at "start"; "daily", "monthly" and "yearly" need a date-pattern that
         * holds that period. Defaults to never.
         */
        private SerialReset reset;

        /**
         * IANA time zone whose calendar gives the date and the period, such as "Asia/Shanghai"; required with a
         * date-pattern or a reset.
         */
        private String zone;

        /**
         * Stock level at or below which a take starts a refill in the background, below "max-batch". Defaults
         * to "min-batch".
         */
        private Integer critical;

        /**
         * Fewest numbers one refill reserves. Defaults to 100.
         */
        private Integer minBatch;

        /**
         * Most numbers one refill reserves, and the most one call may take; at most 1000000. Defaults to 10000.
         */
        private Integer maxBatch;

        public String getPrefix() {
            return this.prefix;
        }

        public void setPrefix(String prefix) {
            this.prefix = prefix;
        }

        public String getDatePattern() {
            return this.datePattern;
        }

        public void setDatePattern(String datePattern) {
            this.datePattern = datePattern;
        }

        public Integer getWidth() {
            return this.width;
        }

        public void setWidth(Integer width) {
            this.width = width;
        }

        public Long getStart() {
            return this.start;
        }

        public void setStart(Long start) {
            this.start = start;
        }

        public Long getMax() {
            return this.max;
        }

        public void setMax(Long max) {
            this.max = max;
        }

        public SerialReset getReset() {
            return this.reset;
        }

        public void setReset(SerialReset reset) {
            this.reset = reset;
        }

        public String getZone() {
            return this.zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }

        public Integer getCritical() {
            return this.critical;
        }

        public void setCritical(Integer critical) {
            this.critical = critical;
        }

        public Integer getMinBatch() {
            return this.minBatch;
        }

        public void setMinBatch(Integer minBatch) {
            this.minBatch = minBatch;
        }

        public Integer getMaxBatch() {
            return this.maxBatch;
        }

        public void setMaxBatch(Integer maxBatch) {
            this.maxBatch = maxBatch;
        }
    }

    /**
     * ID pools, used with {@code @EnableIdPools}: entities registered in a pool table at startup (the table is the
     * source of truth), IDs waiting in one Redis list per entity, refilled by every node from offsets reserved in
     * the table. Keys share "idworker.redis.key-prefix".
     */
    public static class Pool {

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

    /**
     * One ID pool entity registered at startup. The pool refills when it holds fewer than max-pool-size ×
     * threshold-percent / 100 IDs, in whole chunks of "step" that must fit in the room above that level. Unset
     * values take the defaults named.
     */
    public static class PoolEntityProperties {

        /**
         * What the IDs number, for people, at most 128 characters. Defaults to the entity key.
         */
        private String name;

        /**
         * How IDs follow each other: MONOTONIC (increasing in take order across all nodes) or TREND (increasing
         * chunk by chunk, shuffled within a chunk). Defaults to MONOTONIC.
         */
        private IncreasingType type = IncreasingType.MONOTONIC;

        /**
         * First offset handed out; with one environment the first ID. Defaults to 1.
         */
        private long startOffset = PoolEntity.DEFAULT_START_OFFSET;

        /**
         * Offsets one chunk holds: the unit of a database reservation and of a TREND shuffle, 1 to 1000000.
         * Defaults to 1000.
         */
        private int step = PoolEntity.DEFAULT_STEP;

        /**
         * Most IDs one take may ask for, at most "max-per-second" and "max-pool-size". Defaults to 1000.
         */
        private int maxPerRequest = PoolEntity.DEFAULT_MAX_PER_REQUEST;

        /**
         * Most IDs taken per second across all nodes; a take past it fails with RateLimitedException. Defaults to
         * 5000.
         */
        private int maxPerSecond = PoolEntity.DEFAULT_MAX_PER_SECOND;

        /**
         * Level, in percent of "max-pool-size", below which the pool is refilled and counts as low; 1 to 99.
         * Defaults to 80.
         */
        private int thresholdPercent = PoolEntity.DEFAULT_THRESHOLD_PERCENT;

        /**
         * Time between two refill checks of the pool on each node, from 10ms to 1h. Defaults to 1s.
         */
        private Duration checkInterval = PoolEntity.DEFAULT_CHECK_INTERVAL;

        /**
         * Most IDs the Redis list ever holds, 1 to 100000000. Defaults to 60 seconds of "max-per-second".
         */
        private Long maxPoolSize;

        /**
         * MONOTONIC only: up to this many offsets skipped at random after each ID, so IDs do not reveal business
         * volume; 0 to 1000000. Defaults to 0, no gaps.
         */
        private int maxGap = 0;

        public String getName() {
            return this.name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public IncreasingType getType() {
            return this.type;
        }

        public void setType(IncreasingType type) {
            this.type = type;
        }

        public long getStartOffset() {
            return this.startOffset;
        }

        public void setStartOffset(long startOffset) {
            this.startOffset = startOffset;
        }

        public int getStep() {
            return this.step;
        }

        public void setStep(int step) {
            this.step = step;
        }

        public int getMaxPerRequest() {
            return this.maxPerRequest;
        }

        public void setMaxPerRequest(int maxPerRequest) {
            this.maxPerRequest = maxPerRequest;
        }

        public int getMaxPerSecond() {
            return this.maxPerSecond;
        }

        public void setMaxPerSecond(int maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
        }

        public int getThresholdPercent() {
            return this.thresholdPercent;
        }

        public void setThresholdPercent(int thresholdPercent) {
            this.thresholdPercent = thresholdPercent;
        }

        public Duration getCheckInterval() {
            return this.checkInterval;
        }

        public void setCheckInterval(Duration checkInterval) {
            this.checkInterval = checkInterval;
        }

        public Long getMaxPoolSize() {
            return this.maxPoolSize;
        }

        public void setMaxPoolSize(Long maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
        }

        public int getMaxGap() {
            return this.maxGap;
        }

        public void setMaxGap(int maxGap) {
            this.maxGap = maxGap;
        }
    }
}
