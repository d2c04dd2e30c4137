package io.github.idworker.benchmarks;

import io.github.idworker.IdGenerator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The CPU cost of one identifier below the ceiling, in nanoseconds: {@code nextId()} of one shared generator whose
 * layout has 20 sequence bits ({@link BenchmarkLayout#WIDE_SEQUENCE}, about 1 G ids/s), so the sequence never runs
 * out and no caller waits for the next millisecond. Ours (a leased worker: fence read, state read, clock read, the
 * fence check and one compare-and-set) beside CosId's {@code MillisecondSnowflakeId} with the same widths, through
 * the {@link SnowflakeSource} {@code @Param}, in one run. Target for ours: at most 15 ns per id. Hutool's
 * {@code Snowflake} is not in it: its sequence is fixed at 12 bits, so it would measure the wait at its ceiling,
 * not its cost.
 *
 * <p>Every source pays a {@code System.currentTimeMillis()} per id. Two baselines give the floor:
 * {@code AtomicLong.incrementAndGet()} (the compare-and-set alone) and a bare {@code System.currentTimeMillis()}.
 *
 * <p>Every benchmark runs with one thread and with two threads on the same generator or counter. In
 * {@code AverageTime} mode the two-thread score is each thread's time per call, so the time per identifier of
 * the generator as a whole is half of it.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SnowflakeCostBenchmark
 * </pre>
 * One source only: add {@code -p source=IDWORKER}; one thread count only: {@code 'SnowflakeCostBenchmark.*1Thread'}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SnowflakeCostBenchmark {

    /** One generator shared by all threads. */
    @State(Scope.Benchmark)
    public static class Worker {

        @Param({"IDWORKER", "COSID"})
        public SnowflakeSource source;

        IdGenerator ids;
        private SnowflakeSource.Running running;

        @Setup
        public void start() {
            running = source.start(BenchmarkLayout.WIDE_SEQUENCE);
            ids = running.ids();
        }

        @TearDown
        public void close() {
            running.stop().run();
        }
    }

    /** One counter shared by all threads: the compare-and-set floor. */
    @State(Scope.Benchmark)
    public static class Counter {
        final AtomicLong value = new AtomicLong();
    }

    @Benchmark
    @Threads(1)
    public long nextId1Thread(Worker w) {
        return w.ids.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId2Threads(Worker w) {
        return w.ids.nextId();
    }

    @Benchmark
    @Threads(1)
    public long baselineAtomicIncrement1Thread(Counter c) {
        return c.value.incrementAndGet();
    }

    @Benchmark
    @Threads(2)
    public long baselineAtomicIncrement2Threads(Counter c) {
        return c.value.incrementAndGet();
    }

    @Benchmark
    @Threads(1)
    public long baselineCurrentTimeMillis1Thread() {
        return System.currentTimeMillis();
    }

    @Benchmark
    @Threads(2)
    public long baselineCurrentTimeMillis2Threads() {
        return System.currentTimeMillis();
    }
}
