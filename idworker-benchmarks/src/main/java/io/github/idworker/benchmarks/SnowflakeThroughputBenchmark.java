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

/**
 * Identifiers per second from ONE shared snowflake generator with the default layout (41 timestamp, 10 worker,
 * 12 sequence bits), whose ceiling is 4,096 ids per millisecond = 4.096 M ids/s: ours (a leased worker), CosId's
 * {@code MillisecondSnowflakeId} and Hutool's {@code Snowflake}, side by side in one run through the
 * {@link SnowflakeSource} {@code @Param}. Target for ours: at least 4.05 M ids/s (98.9 % of the ceiling), callers
 * that outrun the sequence fill every millisecond and wait only for the next.
 *
 * <p>This is a wall-clock figure, not a CPU one: a millisecond in which no calling thread is on a CPU loses its
 * 4,096 ids for good, whoever's generator it is. Run it on a quiet machine, report the load average
 * ({@code uptime}) beside it and compare sources within one run only.
 *
 * <p>{@link #nextId1Thread} calls {@code nextId()} from one thread, {@link #nextId2Threads} from two threads
 * sharing the same generator ({@code @State(Scope.Benchmark)}); the score of the latter is the sum over both
 * threads. Every source reads the system clock.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SnowflakeThroughputBenchmark
 * </pre>
 * One thread count only: {@code 'SnowflakeThroughputBenchmark.nextId1Thread'}; one source only:
 * {@code -p source=IDWORKER}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class SnowflakeThroughputBenchmark {

    @Param({"IDWORKER", "COSID", "HUTOOL"})
    public SnowflakeSource source;

    private SnowflakeSource.Running running;
    private IdGenerator ids;

    @Setup
    public void start() {
        running = source.start(BenchmarkLayout.DEFAULT);
        ids = running.ids();
    }

    @TearDown
    public void close() {
        running.stop().run();
    }

    @Benchmark
    @Threads(1)
    public long nextId1Thread() {
        return ids.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId2Threads() {
        return ids.nextId();
    }
}
