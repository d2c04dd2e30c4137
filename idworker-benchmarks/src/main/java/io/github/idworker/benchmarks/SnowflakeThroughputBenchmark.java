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
 * Identifiers per second from ONE shared, leased worker with the default layout (41 timestamp, 10 worker,
 * 12 sequence bits), whose ceiling is 4,096 ids per millisecond = 4.096 M ids/s. Target: at least 4.05 M ids/s
 * (98.9 % of the ceiling): callers that outrun the sequence fill every millisecond and wait only for the next.
 *
 * <p>This is a wall-clock figure, not a CPU one: a millisecond in which no calling thread is on a CPU, or which the
 * ticking clock skips because its own thread woke late, loses its 4,096 ids for good. Run it on a quiet machine
 * and report the load average ({@code uptime}) beside it.
 *
 * <p>{@link #nextId1Thread} calls {@code nextId()} from one thread, {@link #nextId2Threads} from two threads
 * sharing the same worker ({@code @State(Scope.Benchmark)}); the score of the latter is the sum over both
 * threads. Both run with the system clock and with the ticking clock ({@link BenchmarkClock}), side by side.
 * The worker holds a real lease from {@code JdbcSequenceManager} over in-memory H2 and renews it while it runs.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SnowflakeThroughputBenchmark
 * </pre>
 * One thread count only: {@code java -jar idworker-benchmarks/target/benchmarks.jar 'SnowflakeThroughputBenchmark.nextId1Thread'}
 * or {@code 'SnowflakeThroughputBenchmark.nextId2Threads'}; one clock only: add {@code -p clock=SYSTEM}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class SnowflakeThroughputBenchmark {

    @Param({"SYSTEM", "TICKING"})
    public BenchmarkClock clock;

    private DBIdWorker worker;

    @Setup
    public void start() {
        worker = LeasedWorkers.start(BenchmarkLayout.DEFAULT.layout(), clock.clock());
    }

    @TearDown
    public void close() {
        LeasedWorkers.close(worker);
    }

    @Benchmark
    @Threads(1)
    public long nextId1Thread() {
        return worker.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId2Threads() {
        return worker.nextId();
    }
}
