package io.github.idworker.benchmarks;

import io.github.idworker.snowflake.DBIdWorker;
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

/**
 * Nanoseconds per {@code nextIds(count)} batch (default 1,000 ids) from one leased worker, one thread; ids per
 * second = {@code count * 1e9 / score}. A batch reserves as many ids as fit in the current millisecond with one
 * compare-and-set, so its cost is an allocation and an array fill, not {@code count} calls.
 *
 * <p>Both layouts run side by side ({@link BenchmarkLayout}): with {@code DEFAULT} a batch is bound by the
 * ceiling of 4,096 ids per millisecond (expect about 244 µs per 1,000 ids), with {@code WIDE_SEQUENCE} it shows
 * the CPU cost. The clock is the system clock; a batch reads it once per millisecond's share, so it hardly
 * matters.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SnowflakeBatchBenchmark
 * </pre>
 * Other batch sizes: add {@code -p count=100,10000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Benchmark)
public class SnowflakeBatchBenchmark {

    @Param({"DEFAULT", "WIDE_SEQUENCE"})
    public BenchmarkLayout layout;

    @Param({"1000"})
    public int count;

    private DBIdWorker worker;

    @Setup
    public void start() {
        worker = LeasedWorkers.start(layout.layout());
    }

    @TearDown
    public void close() {
        LeasedWorkers.close(worker);
    }

    @Benchmark
    public long[] nextIds() {
        return worker.nextIds(count);
    }
}
