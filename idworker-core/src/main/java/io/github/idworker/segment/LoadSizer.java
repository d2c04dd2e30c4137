package io.github.idworker.segment;

import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Sizes the loads of one {@link SegmentIdGenerator} from the demand it measures. Guarantees: every load is a whole
 * number of steps, at least one and at most {@code maxStepsPerLoad}, of a step within {@code [minStep, maxStep]},
 * and never asks the allocator for more than {@link Integer#MAX_VALUE} numbers.
 *
 * <p>Steps of {@link #loadAfter}, at the prefetch of a buffer:
 * <ol>
 *   <li>Demand: the numbers consumed over the last complete buffer plus the consumed part of the current one,
 *       divided by the time they took.</li>
 *   <li>Step: what that demand consumes in {@code targetLifetime}, clamped to {@code [minStep, maxStep]} and to at
 *       least half the current step.</li>
 *   <li>Whole steps: when one such step would last less than {@code minLoadLifetime}, as many steps as that time's
 *       demand consumes, at least half the current load, 1 at the first measure, at most four times the current
 *       load's steps and at most {@link #maxSteps}.</li>
 * </ol>
 * {@link #demandLoad} answers a caller that found both buffers empty: twice the current load.
 *
 * <p>Not thread-safe: the generator calls it under its lock only.
 */
final class LoadSizer {

    private final SegmentGeneratorOptions options;
    private final LongSupplier clock;
    private final long targetLifetimeNanos;
    private final long minLoadLifetimeNanos;

    // guarded by the generator's lock
    private @Nullable SegmentBuffer previous;
    private long previousLifetimeNanos;

    LoadSizer(SegmentGeneratorOptions options) {
        this.options = options;
        this.clock = options.nanoClock();
        this.targetLifetimeNanos = options.targetLifetime().toNanos();
        this.minLoadLifetimeNanos = options.minLoadLifetime().toNanos();
    }

    /*
     * A load is packed into one long: the step in the low 32 bits, the number of whole steps above them. The load
     * asks the allocator for step × steps numbers, which never passes Integer.MAX_VALUE (see maxSteps).
     */
    static long load(int step, long steps) {
        return (steps << 32) | step;
    }

    static int step(long load) {
        return (int) load;
    }

    static int steps(long load) {
        return (int) (load >>> 32);
    }

    /** The first load: one step of {@code initialStep}. */
    long initialLoad() {
        return load(options.initialStep(), 1);
    }

    /** Records that {@code retired} stopped being current at {@code nowNanos}: the last complete buffer measured. */
    void retired(SegmentBuffer retired, long nowNanos) {
        previous = retired;
        previousLifetimeNanos = nowNanos - retired.activatedNanos;
    }

    /** Most whole steps of {@code step} one load may hold: the option, and what one range of an int can hold. */
    private int maxSteps(int step) {
        return Math.max(1, Math.min(options.maxStepsPerLoad(), Integer.MAX_VALUE / step));
    }

    /**
     * The load after {@code trigger}, from the demand measured up to its prefetch. The step follows demand over
     * {@code targetLifetime} within {@code [minStep, maxStep]}; when one such step would last less than
     * {@code minLoadLifetime}, the load reserves as many whole steps as that time's demand consumes, growing by at
     * most four times per load. A lull shrinks either by at most half per load.
     */
    long loadAfter(SegmentBuffer trigger) {
        int step = trigger.step;
        long consumed = Math.min(trigger.size, Math.max(1, trigger.used));
        long elapsed = clock.getAsLong() - trigger.activatedNanos;
        SegmentBuffer before = previous;
        if (before != null) {
            consumed += before.size;
            elapsed += previousLifetimeNanos;
        }
        double perNano = consumed / (double) Math.max(1, elapsed);
        long wanted = (long) Math.min(perNano * targetLifetimeNanos, options.maxStep());
        long floor = Math.max(options.minStep(), step / 2);
        int nextStep = (int) Math.min(options.maxStep(), Math.max(floor, wanted));
        double perLoad = Math.min(perNano * minLoadLifetimeNanos, (double) Integer.MAX_VALUE);
        // a demand within 5 % of a whole number of steps takes no further step: the measure is not that exact
        long steps = Math.max((long) Math.ceil(perLoad / nextStep - 0.05), (trigger.size / 2 + nextStep - 1) / nextStep);
        if (before == null) {
            // the first measure covers a few numbers of the first range only, perhaps one burst of a caller that
            // then idles: not evidence enough to reserve more than a step (a waiting caller still doubles the load)
            steps = 1;
        }
        // grow by at most four times per load: a burst inflates one measure, and what a load reserves beyond
        // demand is skipped on restart; a real surge still reaches a second's demand within a few loads
        steps = Math.min(steps, 4L * Math.max(1, trigger.size / nextStep));
        return load(nextStep, Math.min(maxSteps(nextStep), Math.max(1, steps)));
    }

    /**
     * The load a waiting caller asked for: twice the current one, in a step twice as large where allowed; the
     * first load when nothing is current yet.
     */
    long demandLoad(@Nullable SegmentBuffer current) {
        if (current == null) {
            return initialLoad();
        }
        int step = (int) Math.min(options.maxStep(), Math.max(options.minStep(), 2L * current.step));
        long steps = (2 * current.size + step - 1) / step;
        return load(step, Math.min(maxSteps(step), Math.max(1, steps)));
    }
}
