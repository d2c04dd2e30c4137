package io.github.idworker.benchmarks;

import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Refill never blocks a steady caller: one thread takes numbers from an in-process {@link SegmentIdGenerator} at
 * a steady rate ({@code idsPerSecond}, in bursts of {@value #BURST} with a pause up to the next burst's slot)
 * while the generator refills from a real {@code JdbcSegmentAllocator} over in-memory H2 many times per second.
 * Ranges are kept small on purpose — {@value #MIN_STEP} to {@value #MAX_STEP} numbers — so that at 1 M ids/s a
 * range lasts 20 ms and about 50 refills a second happen in the background.
 *
 * <p>Besides the rate achieved (the score, ids/s), two {@code @AuxCounters} are reported over the measurement
 * iterations only, so the first range loaded at start (warm-up) does not count:
 * <ul>
 *   <li>{@code waitedCalls}: calls that found both buffers empty and had to wait for a range. Target: 0.</li>
 *   <li>{@code loadedRanges}: ranges loaded in the background meanwhile, showing the refills really happened.</li>
 * </ul>
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SegmentSteadyRateBenchmark
 * </pre>
 * Another rate: {@code -p idsPerSecond=2000000}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Benchmark)
public class SegmentSteadyRateBenchmark {

    static final int BURST = 100;
    static final int MIN_STEP = 1_000;
    static final int MAX_STEP = 20_000;

    @Param({"100000", "1000000"})
    public int idsPerSecond;

    private SegmentIdGenerator generator;
    private String tag;

    @Setup
    public void start() {
        JdbcSegmentAllocator allocator = SegmentTables.allocator();
        tag = SegmentTables.newTag(allocator, "bench-steady");
        generator = new SegmentIdGenerator(allocator, tag,
                SegmentGeneratorOptions.builder().minStep(MIN_STEP).maxStep(MAX_STEP).build()).preload();
    }

    @TearDown
    public void close() {
        System.out.println("segment tag " + tag + ": " + generator.loadedSegments() + " ranges loaded in all, "
                + generator.waitedCalls() + " call(s) waited for a range in all (warm-up included), last step "
                + generator.currentStep());
        generator.close();
        SegmentTables.deleteTag(tag);
    }

    /** The pace of the calling thread. */
    @State(Scope.Thread)
    public static class Pacer {
        long periodNanos;
        long nextSlot;

        @Setup(Level.Iteration)
        public void restart(SegmentSteadyRateBenchmark benchmark) {
            periodNanos = TimeUnit.SECONDS.toNanos(1) * BURST / benchmark.idsPerSecond;
            nextSlot = System.nanoTime();
        }
    }

    /** Refill figures of one iteration; JMH sums them over the measurement iterations. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Refills {
        public long waitedCalls;
        public long loadedRanges;
        long waitedBefore;
        long loadedBefore;

        @Setup(Level.Iteration)
        public void restart(SegmentSteadyRateBenchmark benchmark) {
            waitedCalls = 0;
            loadedRanges = 0;
            waitedBefore = benchmark.generator.waitedCalls();
            loadedBefore = benchmark.generator.loadedSegments();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public long steadyNextId(Pacer pacer, Refills refills) {
        SegmentIdGenerator g = generator;
        long last = 0;
        for (int i = 0; i < BURST; i++) {
            last = g.nextId();
        }
        refills.waitedCalls = g.waitedCalls() - refills.waitedBefore;
        refills.loadedRanges = g.loadedSegments() - refills.loadedBefore;
        pacer.nextSlot += pacer.periodNanos;
        long wait = pacer.nextSlot - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        } else if (wait < -100 * pacer.periodNanos) {
            // descheduled for a long time: carry on at the rate instead of catching up in one rush
            pacer.nextSlot = System.nanoTime();
        }
        return last;
    }
}
