package io.github.idworker.benchmarks;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
import redis.clients.jedis.UnifiedJedis;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Numbers per second from one {@link RedisSegmentIdGenerator} — the strictly ordered sequence, one Lua call per
 * {@code nextId()} and per {@code nextIds(1000)} batch — beside a plain Redis {@code INCR} round trip through the
 * same Jedis client (a pooled {@code RedisClient}), measured in the same run. All scores are ids per second: the
 * batch benchmarks count 1,000 per call ({@code @OperationsPerInvocation}). Two threads share one generator and
 * one client; their score is the sum.
 *
 * <p>{@code checkRunId} is a {@code @Param}: with {@code true} (the default in production) every call also runs
 * {@code INFO server} inside the script to notice a Redis that restarted from an old snapshot; {@code false}
 * shows what that costs. The {@code INCR} baseline does not depend on it and runs once per thread count.
 *
 * <p>Redis: {@code 127.0.0.1:6379} when it answers, otherwise an embedded Redis on a free port (see
 * {@link BenchmarkRedis}; {@code -Didworker.bench.redis=host:port} for another one); each trial prints which.
 * Ranges come from a real {@code JdbcSegmentAllocator} over in-memory H2, {@value #STEP} numbers per refill,
 * so refills (lock, allocate, install, unlock: four more round trips and one transaction) are rare and the
 * figure is the steady per-call cost. Keys and rows use a random tag and are deleted when the trial ends.
 *
 * <p>Build once, then run, from the repository root:
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar RedisSequenceBenchmark
 * </pre>
 * One thread count only: {@code 'RedisSequenceBenchmark.*1Thread'}; production setting only: {@code -p checkRunId=true}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class RedisSequenceBenchmark {

    static final int STEP = 10_000_000;
    static final int BATCH = 1000;
    static final String KEY_PREFIX = "idworker-bench";

    /** The Redis server and one pooled client, shared by all threads. */
    @State(Scope.Benchmark)
    public static class Redis {
        BenchmarkRedis redis;
        UnifiedJedis client;
        String incrKey;

        @Setup
        public void open() {
            redis = BenchmarkRedis.open();
            client = redis.newClient();
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

    /** One Redis sequence over the shared client, with or without the run-id check. */
    @State(Scope.Benchmark)
    public static class Sequence {

        @Param({"true", "false"})
        public boolean checkRunId;

        RedisSegmentIdGenerator generator;
        private String tag;
        private UnifiedJedis client;

        @Setup
        public void open(Redis redis) {
            client = redis.client;
            JdbcSegmentAllocator allocator = SegmentTables.allocator();
            tag = SegmentTables.newTag(allocator, "bench-redis");
            RedisSegmentOptions options = RedisSegmentOptions.builder().keyPrefix(KEY_PREFIX).step(STEP)
                    .checkRunId(checkRunId).build();
            generator = new RedisSegmentIdGenerator(new JedisScriptExecutor(redis.client, redis.redis.host + ":"
                    + redis.redis.port), allocator, tag, options);
        }

        @TearDown
        public void close() {
            System.out.println("Redis sequence " + tag + ": " + generator.installedRanges() + " range(s) of " + STEP
                    + " installed, " + generator.waitedCalls() + " call(s) took part in a refill");
            client.del(generator.rangeKey(), generator.lockKey());
            SegmentTables.deleteTag(tag);
        }
    }

    @Benchmark
    @Threads(1)
    public long nextId1Thread(Sequence s) {
        return s.generator.nextId();
    }

    @Benchmark
    @Threads(2)
    public long nextId2Threads(Sequence s) {
        return s.generator.nextId();
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public long[] nextIds1000_1Thread(Sequence s) {
        return s.generator.nextIds(BATCH);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(BATCH)
    public long[] nextIds1000_2Threads(Sequence s) {
        return s.generator.nextIds(BATCH);
    }

    @Benchmark
    @Threads(1)
    public long baselineIncr1Thread(Redis r) {
        return r.client.incr(r.incrKey);
    }

    @Benchmark
    @Threads(2)
    public long baselineIncr2Threads(Redis r) {
        return r.client.incr(r.incrKey);
    }
}
