package io.github.idworker.benchmarks;

import io.github.idworker.IdGenerator;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import me.ahoo.cosid.segment.IdSegment;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.segment.concurrent.PrefetchWorkerExecutorService;
import org.jspecify.annotations.Nullable;
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

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Numbers per second from our in-process {@link SegmentIdGenerator} and from CosId's {@link SegmentChainId}, side
 * by side in one run: the {@link Source} {@code @Param} puts both behind the same {@link IdGenerator#nextId()}
 * call, each value in its own fork, so the JIT sees one implementation per fork. A bare
 * {@link AtomicLong#incrementAndGet()} ({@link #atomicLong1Thread}, {@link #atomicLong2Threads}) gives the floor
 * in the same run; it has no step, so it is a benchmark of its own instead of a third source run once per step.
 *
 * <p><b>Step.</b> {@code step} = 100, 1,000 or 10,000 is a FIXED range size: ours with
 * {@code minStep = maxStep = initialStep = step}, CosId with a distributor of that step. {@code step} = 0 means
 * each side's defaults: ours {@link SegmentGeneratorOptions#defaults()} (adaptive, 1,000 to 1,000,000), CosId its
 * default step ({@link IdSegmentDistributor#DEFAULT_STEP}, 10). Small fixed steps measure how a generator switches
 * ranges; at 100 a few hundred million numbers a second mean millions of ranges a second.
 *
 * <p><b>Store.</b> Both take their ranges from memory by default ({@code allocator=MEMORY}): ours from
 * {@link InMemorySegmentAllocator}, CosId from its own {@link IdSegmentDistributor.Atomic}; either range is one
 * atomic add, so both pay the same for a range and the figure is the generator's. {@code -p allocator=H2} puts
 * both over a real {@code JdbcSegmentAllocator} on in-memory H2 (CosId through
 * {@link SegmentAllocatorDistributor}), one transaction per range.
 *
 * <p><b>CosId's settings</b> are its defaults: {@link SegmentChainId#DEFAULT_SAFE_DISTANCE} (2 segments ahead),
 * ids that never expire ({@link IdSegment#TIME_TO_LIVE_FOREVER}) and a prefetch executor like its
 * {@link PrefetchWorkerExecutorService#DEFAULT} (period {@link PrefetchWorkerExecutorService#DEFAULT_PREFETCH_PERIOD},
 * one worker per processor), created per trial so it can be shut down with it. A caller that finds the chain
 * used up loads {@code safeDistance} segments itself in one distributor call, and each such hunger doubles how
 * many segments the prefetcher keeps ahead.
 *
 * <p>Two threads share one generator ({@code Scope.Benchmark}); their score is the sum over both threads. The
 * trial prints, for ours, how many calls waited for a range, how many ranges were loaded and the step it ended
 * with; for CosId, how far its chain advanced.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SegmentBenchmark
 * </pre>
 * One thread count only: {@code 'SegmentBenchmark.nextId1Thread'}; one side only: {@code -p source=SEGMENT};
 * some steps only: {@code -p step=0,1000}; over H2: {@code -p allocator=H2} (or {@code MEMORY,H2}).
 *
 * <p>Two forks per case, 3 × 1 s warm-up and 5 × 1 s measured: 18 cases × 2 forks × 8 s = 288 s of iterations,
 * about 5 minutes with JVM starts; on a small VM single forks of a generator have been seen to vary by a quarter.
 * Part of the run against every peer, whose command is in the module's pom description and docs/benchmarks.md.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class SegmentBenchmark {

    /** What hands out the numbers. */
    public enum Source {

        /** Our {@link SegmentIdGenerator}. */
        SEGMENT,

        /** CosId's {@link SegmentChainId}. */
        COSID_SEGMENT_CHAIN
    }

    /** {@code step} value that means each side's default settings. */
    static final int DEFAULTS = 0;

    /**
     * The counter behind the same interface as the generators, given the same care against false sharing: the
     * holder's reference and the counter's value each sit 128 bytes away from anything else, so that, with two
     * threads, an add does not evict the line the other thread reads the reference from. Without it the floor
     * would be lower than a careful counter's and the comparison would flatter the generators.
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

    /** One generator shared by all threads. */
    @State(Scope.Benchmark)
    public static class Numbers {

        @Param({"SEGMENT", "COSID_SEGMENT_CHAIN"})
        public Source source;

        /** Numbers per range, fixed; 0 = each side's default settings. */
        @Param({"0", "100", "1000", "10000"})
        public int step;

        @Param({"MEMORY"})
        public SegmentStore allocator;

        IdGenerator ids;
        private String tag;
        /** Set for {@code SEGMENT} only. */
        private @Nullable SegmentIdGenerator generator;
        /** Set, with its prefetch workers, for {@code COSID_SEGMENT_CHAIN} only. */
        private @Nullable SegmentChainId chain;
        private @Nullable PrefetchWorkerExecutorService prefetch;

        @Setup
        public void start() {
            if (step < 0) {
                throw new IllegalArgumentException("step must be 0 (defaults) or a fixed range size, was " + step);
            }
            SegmentAllocator store = allocator.allocator();
            tag = SegmentTables.newTag(store, "bench-" + source.name().toLowerCase().replace('_', '-'));
            switch (source) {
                case SEGMENT -> {
                    SegmentGeneratorOptions options = step == DEFAULTS ? SegmentGeneratorOptions.defaults()
                            : SegmentGeneratorOptions.builder().minStep(step).maxStep(step).initialStep(step).build();
                    generator = new SegmentIdGenerator(store, tag, options).preload();
                    ids = generator;
                }
                case COSID_SEGMENT_CHAIN -> {
                    long cosIdStep = step == DEFAULTS ? IdSegmentDistributor.DEFAULT_STEP : step;
                    IdSegmentDistributor distributor = allocator == SegmentStore.MEMORY
                            ? new IdSegmentDistributor.Atomic(cosIdStep)
                            : new SegmentAllocatorDistributor(store, tag, cosIdStep);
                    prefetch = new PrefetchWorkerExecutorService(PrefetchWorkerExecutorService.DEFAULT_PREFETCH_PERIOD,
                            Runtime.getRuntime().availableProcessors(), false);
                    chain = new SegmentChainId(IdSegment.TIME_TO_LIVE_FOREVER, SegmentChainId.DEFAULT_SAFE_DISTANCE,
                            distributor, prefetch);
                    SegmentChainId cosId = chain;
                    ids = cosId::generate;
                }
                default -> throw new IllegalArgumentException("unknown source " + source);
            }
        }

        @TearDown
        public void close() {
            String what = source + " step=" + (step == DEFAULTS ? "defaults" : step) + " over " + allocator;
            if (generator != null) {
                System.out.println(what + ": " + generator.loadedSegments() + " ranges loaded, "
                        + generator.waitedCalls() + " call(s) waited for a range, step at the end "
                        + generator.currentStep());
                generator.close();
            }
            if (chain != null) {
                System.out.println(what + ": chain advanced to version " + chain.getHead().getVersion()
                        + ", current segment " + chain.current());
                Objects.requireNonNull(prefetch).shutdown();
            }
            allocator.deleteTag(tag);
        }
    }

    /** One padded counter shared by all threads: the floor. */
    @State(Scope.Benchmark)
    public static class Floor {
        final IdGenerator ids = new AtomicLongIds();
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

    @Benchmark
    @Threads(1)
    public long atomicLong1Thread(Floor f) {
        return f.ids.nextId();
    }

    @Benchmark
    @Threads(2)
    public long atomicLong2Threads(Floor f) {
        return f.ids.nextId();
    }
}
