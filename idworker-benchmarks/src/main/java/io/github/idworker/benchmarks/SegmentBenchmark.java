package io.github.idworker.benchmarks;

import io.github.idworker.IdGenerator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
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
 * Numbers per second from one in-process {@link SegmentIdGenerator} ({@code nextId()}), beside a bare
 * {@link AtomicLong#incrementAndGet()} measured in the same run: the {@link Source} {@code @Param} puts both behind
 * the same {@link IdGenerator} call, each in its own fork, so the JIT sees one implementation per fork. Target:
 * the generator at 80 % or more of the counter, with one thread and with two threads sharing it.
 *
 * <p>The generator takes its ranges from a real {@code JdbcSegmentAllocator} over in-memory H2 and is sized so
 * that ranges rarely run out (50,000,000 numbers per range by default, the {@code step} {@code @Param}, loaded in
 * the background at 20 %): what is measured is the hot path — one volatile read of the current range, one
 * {@code getAndIncrement}, one bounds check and one mask test. Two threads share one generator and one counter
 * ({@code Scope.Benchmark}); their score is the sum over both threads, so contention on the one cache line shows
 * as it would in an application. The trial prints how many calls had to wait for a range (expect 0) and how many
 * ranges were loaded. Three forks per case: on a small VM single iterations of the generator have been seen to
 * vary by a quarter, more than the counter's.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SegmentBenchmark
 * </pre>
 * One thread count only: {@code 'SegmentBenchmark.nextId1Thread'}; the generator only: {@code -p source=SEGMENT};
 * other range sizes: {@code -p step=5000000,500000000}. At about 300 M numbers per second a 50 M range still
 * runs out six times a second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class SegmentBenchmark {


    /** What hands out the numbers. */
    public enum Source {

        /** An in-process segment generator over a real JDBC allocator. */
        SEGMENT,

        /** A bare {@code AtomicLong.incrementAndGet()}: the floor. */
        ATOMIC_LONG
    }

    /**
     * The counter behind the same interface as the generator, given the same care against false sharing: the
     * holder's reference and the counter's value each sit 128 bytes away from anything else, so that, with two
     * threads, an add does not evict the line the other thread reads the reference from. Without it the floor
     * would be lower than a careful counter's and the comparison would flatter the generator.
     */
    static final class AtomicLongIds extends AtomicLongHolder {
        @SuppressWarnings("unused")
        private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

        @Override
        public long nextId() {
            return value.incrementAndGet();
        }
    }

    /** The reference, laid out before the padding of {@link AtomicLongIds}. */
    abstract static class AtomicLongHolder implements IdGenerator {
        final AtomicLong value = new PaddedAtomicLong();
    }

    /** An {@link AtomicLong} with 128 bytes behind its value, so the next object allocated does not share it. */
    @SuppressWarnings("serial")
    static final class PaddedAtomicLong extends AtomicLong {
        @SuppressWarnings("unused")
        private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
    }

    /** One source shared by all threads. */
    @State(Scope.Benchmark)
    public static class Numbers {

        @Param({"SEGMENT", "ATOMIC_LONG"})
        public Source source;

        /** Numbers per range (min, max and initial step alike); ignored by {@code ATOMIC_LONG}. */
        @Param({"50000000"})
        public int step;

        IdGenerator ids;
        private SegmentIdGenerator generator;
        private String tag;

        @Setup
        public void start() {
            if (source == Source.ATOMIC_LONG) {
                ids = new AtomicLongIds();
                return;
            }
            JdbcSegmentAllocator allocator = SegmentTables.allocator();
            tag = SegmentTables.newTag(allocator, "bench-seg");
            SegmentGeneratorOptions options = SegmentGeneratorOptions.builder()
                    .minStep(step).maxStep(step).initialStep(step).build();
            generator = new SegmentIdGenerator(allocator, tag, options).preload();
            ids = generator;
        }

        @TearDown
        public void close() {
            if (generator == null) {
                return;
            }
            System.out.println("segment tag " + tag + ": " + generator.loadedSegments() + " ranges of " + step
                    + " loaded, " + generator.waitedCalls() + " call(s) waited for a range");
            generator.close();
            SegmentTables.deleteTag(tag);
        }
    }

    @Benchmark
    @Threads(1)
    public long nextId1Thread(Numbers n) {
        return n.ids.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId2Threads(Numbers n) {
        return n.ids.nextId();
    }
}
