package io.github.idworker.benchmarks;

import io.github.idworker.redis.BoundedCalls;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import org.jspecify.annotations.Nullable;
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
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids per second from the strictly ordered Redis sequence beside two peers, all behind one call and measured in
 * the same run, in the manner of Caffeine's benchmarks: one {@code @Param source}, so the ratios are read side by
 * side.
 *
 * <ul>
 *   <li>{@code SEQUENCE} — a {@link RedisSegmentIdGenerator} as shipped: the identity check on every Redis call,
 *       concurrent calls coalesced, ranges installed ahead in the background;</li>
 *   <li>{@code SEQUENCE_NO_CHECK} — the same with {@code checkRunId(false)}: what the identity check costs;</li>
 *   <li>{@code SEQUENCE_UNCOALESCED} — the same with {@code coalesce(false)}: one Redis call per caller;</li>
 *   <li>{@code RAW_INCR} — a plain {@code INCR} ({@code INCRBY n} for a batch) through the same Jedis client: the
 *       floor of one round trip, without ordering across a refill, without a durable high-water and without any
 *       data-loss check;</li>
 *   <li>{@code RAW_LPOP} — the pool-style peer: {@code LPOP} ({@code LPOP key n} for a batch) from a Redis list
 *       pre-filled with numbers and topped up in the background by a thread of its own when it runs low, also
 *       through the same client.</li>
 * </ul>
 * {@code nextId()} runs at 1, 2, 8 and 64 threads sharing one source and one pooled client ({@code RedisClient}, up to
 * 8 connections, its longest blocking time declared to the executor so that calls run on the caller's thread:
 * {@link BenchmarkRedis}); {@code nextIds(1000)} at 1 and 8 threads, counted as 1 000 ids per call
 * ({@code @OperationsPerInvocation}). Every score is ids per second, summed over the threads.
 * After each iteration the trial prints what that iteration cost inside Redis per command ({@link CommandStats}:
 * {@code INFO commandstats} read before and after; {@code evalsha} is the scripts' own time).
 *
 * <p>Redis: {@code 127.0.0.1:6379} when it answers, otherwise an embedded Redis on a free port (see
 * {@link BenchmarkRedis}; {@code -Didworker.bench.redis=host:port} for another one); each trial prints which. The
 * sequences take ranges from a real {@code JdbcSegmentAllocator} over in-memory H2, {@value #STEP} numbers per
 * range, so the figure is the steady per-call cost. Keys and rows use random names and are deleted when the trial
 * ends.
 *
 * <p>Build once, then run, from the repository root (about 3 minutes):
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar RedisSequenceBenchmark
 * </pre>
 * Two sources only: {@code -p source=SEQUENCE,RAW_INCR}; one thread count: {@code 'RedisSequenceBenchmark.nextId_8'}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 2, time = 2)
@Fork(1)
public class RedisSequenceBenchmark {

    static final int STEP = 10_000_000;
    static final int BATCH = 1000;
    static final String KEY_PREFIX = "idworker-bench";

    /** What answers the calls. */
    public enum Source {
        SEQUENCE, SEQUENCE_NO_CHECK, SEQUENCE_UNCOALESCED, RAW_INCR, RAW_LPOP
    }

    /** A trial's Redis state that prints, after each iteration, what it cost inside Redis ({@link CommandStats}). */
    public abstract static class Measured {
        /** Set by the trial's own setup, which JMH runs before the first iteration's. */
        @Nullable CommandStats stats;

        @Setup(Level.Iteration)
        public void startIteration() {
            if (stats != null) {
                stats.start();
            }
        }

        @TearDown(Level.Iteration)
        public void endIteration() {
            if (stats != null) {
                System.out.print(stats.line() + " | ");
            }
        }
    }

    /** The one call every source answers. */
    interface Ids {
        long nextId();

        long[] nextIds(int count);

        /** Deletes what the source wrote; the client stays open. */
        void close();
    }

    /**
     * One Redis server and one pooled client shared by all threads of a trial, for the other Redis benchmarks
     * ({@code SerialBenchmark}, {@code PoolBenchmark}), which measure beside the same kind of client.
     */
    @State(Scope.Benchmark)
    public static class Redis extends Measured {
        BenchmarkRedis redis;
        UnifiedJedis client;
        String incrKey;

        @Setup
        public void open() {
            redis = BenchmarkRedis.open();
            client = redis.newClient();
            stats = new CommandStats(client);
            incrKey = "{" + KEY_PREFIX + ":" + UUID.randomUUID().toString().substring(0, 8) + "}:incr";
            System.out.println("Redis: " + redis);
        }

        @TearDown
        public void close() {
            client.del(incrKey);
            client.close();
            redis.close();
        }
    }

    /** The source under test, one Redis server and one pooled client shared by all threads of a trial. */
    @State(Scope.Benchmark)
    public static class Trial extends Measured {

        @Param
        public Source source;

        BenchmarkRedis redis;
        UnifiedJedis client;
        Ids ids;

        @Setup
        public void open() {
            redis = BenchmarkRedis.open();
            client = redis.newClient();
            stats = new CommandStats(client);
            String name = UUID.randomUUID().toString().substring(0, 8);
            ids = switch (source) {
                case SEQUENCE -> new Sequence(this, RedisSegmentOptions.builder());
                case SEQUENCE_NO_CHECK -> new Sequence(this, RedisSegmentOptions.builder().checkRunId(false));
                case SEQUENCE_UNCOALESCED -> new Sequence(this, RedisSegmentOptions.builder().coalesce(false));
                case RAW_INCR -> new Incr(client, "{" + KEY_PREFIX + ":" + name + "}:incr");
                case RAW_LPOP -> new ListPool(redis, client, "{" + KEY_PREFIX + ":" + name + "}:pool");
            };
            System.out.println("Redis: " + redis);
        }

        @TearDown
        public void close() {
            ids.close();
            client.close();
            redis.close();
        }
    }

    /** Ours: one Redis sequence over the shared client. */
    static final class Sequence implements Ids {
        private final RedisSegmentIdGenerator generator;
        private final UnifiedJedis client;
        private final String tag;

        Sequence(Trial trial, RedisSegmentOptions.Builder options) {
            this.client = trial.client;
            JdbcSegmentAllocator allocator = SegmentTables.allocator();
            this.tag = SegmentTables.newTag(allocator, "bench-redis");
            this.generator = new RedisSegmentIdGenerator(trial.redis.executor(client), allocator, tag, options.keyPrefix(KEY_PREFIX).step(STEP).build());
        }

        @Override
        public long nextId() {
            return generator.nextId();
        }

        @Override
        public long[] nextIds(int count) {
            return generator.nextIds(count);
        }

        @Override
        public void close() {
            System.out.println("Redis sequence " + tag + ": " + generator.scriptCalls() + " script calls, "
                    + generator.coalescedCalls() + " calls coalesced, " + generator.installedRanges() + " range(s) of "
                    + STEP + " installed, " + generator.waitedCalls() + " script call(s) waited for a refill, "
                + BoundedCalls.handOffs() + " store call(s) handed to a pooled thread in this JVM");
            client.del(generator.rangeKey(), generator.lockKey());
            SegmentTables.deleteTag(tag);
        }
    }

    /** A plain counter: one {@code INCR} per id, {@code INCRBY n} per batch. */
    static final class Incr implements Ids {
        private final UnifiedJedis client;
        private final String key;

        Incr(UnifiedJedis client, String key) {
            this.client = client;
            this.key = key;
        }

        @Override
        public long nextId() {
            return client.incr(key);
        }

        @Override
        public long[] nextIds(int count) {
            long last = client.incrBy(key, count);
            long[] out = new long[count];
            for (int i = 0; i < count; i++) {
                out[i] = last - count + 1 + i;
            }
            return out;
        }

        @Override
        public void close() {
            client.del(key);
        }
    }

    /**
     * The pool-style peer: numbers wait in a Redis list; callers {@code LPOP} them; a refiller thread with a client of
     * its own appends {@value #CHUNK} more whenever fewer than {@value #LOW} are left, checking every millisecond.
     */
    static final class ListPool implements Ids {
        static final int CHUNK = 50_000;
        static final int LOW = 30_000;

        private final UnifiedJedis client;
        private final UnifiedJedis refillClient;
        private final String key;
        private final AtomicLong pushed = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread refiller;

        ListPool(BenchmarkRedis redis, UnifiedJedis client, String key) {
            this.client = client;
            this.refillClient = redis.newClient();
            this.key = key;
            refill();
            refill();
            refiller = new Thread(() -> {
                while (running.get()) {
                    if (refillClient.llen(key) < LOW) {
                        refill();
                    } else {
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }, "list-pool-refiller");
            refiller.setDaemon(true);
            refiller.start();
        }

        private void refill() {
            long from = pushed.getAndAdd(CHUNK) + 1;
            try (AbstractPipeline pipeline = refillClient.pipelined()) {
                String[] numbers = new String[1_000];
                for (int i = 0; i < CHUNK; i += numbers.length) {
                    for (int j = 0; j < numbers.length; j++) {
                        numbers[j] = Long.toString(from + i + j);
                    }
                    pipeline.rpush(key, numbers);
                }
                pipeline.sync();
            }
        }

        @Override
        public long nextId() {
            String id;
            while ((id = client.lpop(key)) == null) {
                Thread.onSpinWait(); // the pool ran dry: the refiller is behind
            }
            return Long.parseLong(id);
        }

        @Override
        public long[] nextIds(int count) {
            long[] out = new long[count];
            int n = 0;
            while (n < count) {
                List<String> taken = client.lpop(key, count - n);
                if (taken == null) {
                    Thread.onSpinWait();
                    continue;
                }
                for (String id : taken) {
                    out[n++] = Long.parseLong(id);
                }
            }
            return out;
        }

        @Override
        public void close() {
            running.set(false);
            try {
                refiller.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            client.del(key);
            refillClient.close();
        }
    }

    @Benchmark
    @Threads(1)
    public long nextId_1(Trial t) {
        return t.ids.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId_2(Trial t) {
        return t.ids.nextId();
    }

    @Benchmark
    @Threads(8)
    public long nextId_8(Trial t) {
        return t.ids.nextId();
    }

    @Benchmark
    @Threads(64)
    public long nextId_64(Trial t) {
        return t.ids.nextId();
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public long[] nextIds1000_1(Trial t) {
        return t.ids.nextIds(BATCH);
    }

    @Benchmark
    @Threads(8)
    @OperationsPerInvocation(BATCH)
    public long[] nextIds1000_8(Trial t) {
        return t.ids.nextIds(BATCH);
    }
}
