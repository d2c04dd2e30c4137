package io.github.idworker.segment;

import io.github.idworker.IdWorkerConfigurationException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Validated settings of an in-process {@link SegmentIdGenerator}. Every setting has a default;
 * {@link Builder#build()} rejects values outside what the generator can run with, naming the property.
 */
public final class SegmentGeneratorOptions {

    /** Default smallest step. */
    public static final int DEFAULT_MIN_STEP = 1_000;
    /** Default largest step. */
    public static final int DEFAULT_MAX_STEP = 1_000_000;
    /** Default share of a segment consumed when the next one is loaded. */
    public static final double DEFAULT_PREFETCH_THRESHOLD = 0.2;
    /** Default lifetime a segment is sized for. */
    public static final Duration DEFAULT_TARGET_LIFETIME = Duration.ofMinutes(15);
    /** Default bound on a caller's wait when both buffers are empty. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(3);
    /** Default time one load of whole steps should last at the measured demand. */
    public static final Duration DEFAULT_MIN_LOAD_LIFETIME = Duration.ofSeconds(1);
    /** Default bound on the steps reserved by one load. */
    public static final int DEFAULT_MAX_STEPS_PER_LOAD = 10_000;

    private final int minStep;
    private final int maxStep;
    private final int initialStep;
    private final double prefetchThreshold;
    private final Duration targetLifetime;
    private final Duration maxWait;
    private final Duration minLoadLifetime;
    private final int maxStepsPerLoad;
    private final @Nullable Executor executor;
    private final LongSupplier nanoClock;

    private SegmentGeneratorOptions(Builder b) {
        this.minStep = b.minStep;
        this.maxStep = b.maxStep;
        this.initialStep = b.initialStep > 0 ? b.initialStep : b.minStep;
        this.prefetchThreshold = b.prefetchThreshold;
        this.targetLifetime = b.targetLifetime;
        this.maxWait = b.maxWait;
        this.minLoadLifetime = b.minLoadLifetime;
        this.maxStepsPerLoad = b.maxStepsPerLoad;
        this.executor = b.executor;
        this.nanoClock = b.nanoClock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options with every default. */
    public static SegmentGeneratorOptions defaults() {
        return builder().build();
    }

    public int minStep() {
        return minStep;
    }

    public int maxStep() {
        return maxStep;
    }

    public int initialStep() {
        return initialStep;
    }

    public double prefetchThreshold() {
        return prefetchThreshold;
    }

    public Duration targetLifetime() {
        return targetLifetime;
    }

    public Duration maxWait() {
        return maxWait;
    }

    /** How long one load should last at the measured demand; see {@link Builder#minLoadLifetime(Duration)}. */
    public Duration minLoadLifetime() {
        return minLoadLifetime;
    }

    /** Most whole steps one load reserves; 1 means one step per load. */
    public int maxStepsPerLoad() {
        return maxStepsPerLoad;
    }

    /** Runs background loads; {@code null} means idworker's shared daemon pool. */
    public @Nullable Executor executor() {
        return executor;
    }

    public LongSupplier nanoClock() {
        return nanoClock;
    }

    /** Collects settings; {@link #build()} validates them. */
    public static final class Builder {
        private int minStep = DEFAULT_MIN_STEP;
        private int maxStep = DEFAULT_MAX_STEP;
        private int initialStep;
        private double prefetchThreshold = DEFAULT_PREFETCH_THRESHOLD;
        private Duration targetLifetime = DEFAULT_TARGET_LIFETIME;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration minLoadLifetime = DEFAULT_MIN_LOAD_LIFETIME;
        private int maxStepsPerLoad = DEFAULT_MAX_STEPS_PER_LOAD;
        private @Nullable Executor executor;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder() {
        }

        /** Smallest range asked of the allocator ({@code idworker.segment.min-step}). */
        public Builder minStep(int minStep) {
            this.minStep = minStep;
            return this;
        }

        /** Largest range asked of the allocator ({@code idworker.segment.max-step}); also bounds the numbers a restart skips. */
        public Builder maxStep(int maxStep) {
            this.maxStep = maxStep;
            return this;
        }

        /** Step of the first range after start ({@code idworker.segment.initial-step}); defaults to the min step. */
        public Builder initialStep(int initialStep) {
            this.initialStep = initialStep;
            return this;
        }

        /**
         * Share of the current segment consumed when loading of the next one starts, above 0 and below 1
         * ({@code idworker.segment.prefetch-threshold}); rounded down to the generator's checkpoint, a multiple
         * of 1024 numbers or of a smaller power of two in small segments.
         */
        public Builder prefetchThreshold(double prefetchThreshold) {
            this.prefetchThreshold = prefetchThreshold;
            return this;
        }

        /** How long one segment should last at the measured demand ({@code idworker.segment.target-lifetime}). */
        public Builder targetLifetime(Duration targetLifetime) {
            this.targetLifetime = targetLifetime;
            return this;
        }

        /** Longest a caller waits when both buffers are empty ({@code idworker.segment.max-wait}). */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /**
         * How long one load should last at the measured demand ({@code idworker.segment.min-load-lifetime}): when
         * one step runs out sooner, a load reserves as many whole steps in one allocation as that demand consumes
         * in this time, at most {@link #maxStepsPerLoad(int)}. Range switches then stay rare at any step, and the
         * loader has most of this time to bring the next load in. The price: a restart skips the unused rest of at
         * most two loads, that is about twice this time's demand.
         */
        public Builder minLoadLifetime(Duration minLoadLifetime) {
            this.minLoadLifetime = minLoadLifetime;
            return this;
        }

        /**
         * Most whole steps one load reserves ({@code idworker.segment.max-steps-per-load}); {@code 1} turns
         * multi-step loads off, so that the store advances by exactly one step per load and a restart skips at
         * most two steps, at the cost of a range switch every step.
         */
        public Builder maxStepsPerLoad(int maxStepsPerLoad) {
            this.maxStepsPerLoad = maxStepsPerLoad;
            return this;
        }

        /** Where background loads run; by default a small shared pool of daemon threads. */
        public Builder executor(@Nullable Executor executor) {
            this.executor = executor;
            return this;
        }

        /**
         * The clock demand is measured with, in nanoseconds; tests drive it by hand. Only the step and load sizes
         * follow it: waits ({@code maxWait}) and the retry back-off always run on {@link System#nanoTime()}, so a
         * clock that stands still cannot make a wait endless.
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            return this;
        }

        public SegmentGeneratorOptions build() {
            if (minStep < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.min-step", "must be at least 1, was " + minStep);
            }
            if (maxStep < minStep) {
                throw new IdWorkerConfigurationException("idworker.segment.max-step",
                        "must be at least idworker.segment.min-step (" + minStep + "), was " + maxStep);
            }
            if (initialStep != 0 && (initialStep < minStep || initialStep > maxStep)) {
                throw new IdWorkerConfigurationException("idworker.segment.initial-step",
                        "must lie between min-step " + minStep + " and max-step " + maxStep + ", was " + initialStep);
            }
            if (!(prefetchThreshold > 0 && prefetchThreshold < 1)) {
                throw new IdWorkerConfigurationException("idworker.segment.prefetch-threshold",
                        "must lie above 0 and below 1, was " + prefetchThreshold);
            }
            positive(targetLifetime, "idworker.segment.target-lifetime");
            positive(maxWait, "idworker.segment.max-wait");
            positive(minLoadLifetime, "idworker.segment.min-load-lifetime");
            if (maxStepsPerLoad < 1) {
                throw new IdWorkerConfigurationException("idworker.segment.max-steps-per-load",
                        "must be at least 1 (1 reserves one step per load), was " + maxStepsPerLoad);
            }
            Objects.requireNonNull(nanoClock, "nanoClock");
            return new SegmentGeneratorOptions(this);
        }

        private static void positive(Duration d, String property) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IdWorkerConfigurationException(property, "must be a positive duration, was " + d);
            }
        }
    }

    @Override
    public String toString() {
        return "SegmentGeneratorOptions[step " + minStep + ".." + maxStep + ", initial " + initialStep
                + ", prefetch at " + prefetchThreshold + ", target lifetime " + targetLifetime + ", max wait " + maxWait + ", min load lifetime " + minLoadLifetime + ", at most " + maxStepsPerLoad
                + " steps per load]";
    }
}
