package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Segment mode, used with {@code @EnableSegmentIdGenerators}: ranges of numbers per business tag from one
 * table row per tag, handed out in process ({@code segmentIdGenerators}) or through Redis in strict order
 * ({@code redisSequenceGenerators}).
 * Bound to {@code idworker.segment.*}.
 */
public class SegmentProperties {

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
    private Map<String, SegmentTagProperties> tags = new LinkedHashMap<>();

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
    private @Nullable Integer initialStep;

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
    @NestedConfigurationProperty
    private final SegmentRedisProperties redis = new SegmentRedisProperties();

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

    public Map<String, SegmentTagProperties> getTags() {
        return this.tags;
    }

    public void setTags(Map<String, SegmentTagProperties> tags) {
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

    public @Nullable Integer getInitialStep() {
        return this.initialStep;
    }

    public void setInitialStep(@Nullable Integer initialStep) {
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

    public SegmentRedisProperties getRedis() {
        return this.redis;
    }
}
