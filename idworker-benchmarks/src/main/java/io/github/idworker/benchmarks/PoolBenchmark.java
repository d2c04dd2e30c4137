package io.github.idworker.benchmarks;

import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * IDs per second taken from an ID pool ({@link RedisIdPools}: one {@code pool-take.lua} call per take, with the
 * Redis-identity check, the cross-node rate count and an all-or-nothing {@code LPOP}) beside a raw Redis
 * {@code LPOP} of the same count from a plain list through the same Jedis client — all in one run, one thread each.
 * Scores are IDs per second; batches count 1000 per call ({@code @OperationsPerInvocation}).
 *
 * <p>The pool's refiller runs as in production, on its own thread, every 20 ms, appending chunks of 100 000 IDs
 * reserved in in-memory H2 through a real {@link JdbcPoolStore}; a take that finds the pool short waits 50 µs and
 * tries again (counted and printed at the end of the trial), so the figure includes keeping the pool filled. The
 * raw list is refilled by the benchmark whenever an {@code LPOP} comes back short, outside any measured call's
 * fast path but inside the measured time. Keys and rows use random names and are deleted when the trial ends.
 *
 * <p>Redis: {@code 127.0.0.1:6379} when it answers, otherwise an embedded Redis (see {@link BenchmarkRedis}).
 *
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar PoolBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class PoolBenchmark {

    static final int BATCH = 1000;
    static final String KEY_PREFIX = RedisSequenceBenchmark.KEY_PREFIX;

    /** One MONOTONIC pool over the shared client, its store in in-memory H2. */
    @State(Scope.Benchmark)
    public static class Pool {
        RedisIdPools pools;
        String entity;
        final LongAdder shortTakes = new LongAdder();
        private JdbcPoolStore store;
        private UnifiedJedis client;

        @Setup
        public void open(RedisSequenceBenchmark.Redis redis) {
            client = redis.client;
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:pool-bench;DB_CLOSE_DELAY=-1");
            store = new JdbcPoolStore(dataSource);
            store.createSchemaIfMissing();
            entity = "bench-" + UUID.randomUUID().toString().substring(0, 8);
            pools = new RedisIdPools(redis.redis.executor(redis.client),
                    store, RedisPoolOptions.builder().keyPrefix(KEY_PREFIX).maxRefill(1_000_000)
                    // above the client's bound (BenchmarkRedis), so that takes run on the caller's thread
                    .maxWait(Duration.ofSeconds(3)).build());
            pools.register(PoolEntity.builder(entity).maxPerRequest(BATCH).maxPerSecond(50_000_000)
                    .maxPoolSize(4_000_000L).thresholdPercent(thresholdPercent()).step(100_000)
                    .checkInterval(Duration.ofMillis(20)).build());
            while (pools.status(entity).level() < startLevel()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }

        /** Refills start below this share of the 4 M maximum. */
        int thresholdPercent() {
            return 50;
        }

        /** The level the trial waits for before it measures: refills go on until the threshold is reached. */
        long startLevel() {
            return 2_000_000;
        }

        long[] take(int n) {
            while (true) {
                try {
                    return pools.take(entity, n);
                } catch (PoolEmptyException e) {
                    shortTakes.increment();
                    LockSupport.parkNanos(50_000);
                }
            }
        }

        @TearDown
        public void close() {
            System.out.println("Pool " + entity + ": " + pools.refills() + " refill(s), " + pools.appendedIds()
                    + " IDs appended, " + shortTakes.sum() + " take(s) found the pool short and waited");
            pools.close();
            for (String suffix : List.of("ids", "meta", "rate", "lock")) {
                client.del("{" + KEY_PREFIX + ":pool:" + entity + "}:" + suffix);
            }
            store.deleteEntity(entity);
        }
    }

    /**
     * The pool of the one-ID takes: filled with 1 M IDs by its first refill and refilled again below 400 000 only,
     * so its 1 M outlast a trial (about 13 s at under 40 000 takes per second) and its iterations run
     * {@code pool-take.lua} alone: the commandstats line printed after each is the take's own cost, with no
     * refill's appends in it.
     */
    @State(Scope.Benchmark)
    public static class QuietPool extends Pool {
        @Override
        int thresholdPercent() {
            return 10;
        }

        @Override
        long startLevel() {
            return 1_000_000;
        }
    }

    /** A plain Redis list of numbers, refilled 100 000 at a time when an LPOP comes back short. */
    @State(Scope.Benchmark)
    public static class RawList {
        UnifiedJedis client;
        String key;
        private long next = 1;

        @Setup
        public void open(RedisSequenceBenchmark.Redis redis) {
            client = redis.client;
            key = "{" + KEY_PREFIX + ":raw-" + UUID.randomUUID().toString().substring(0, 8) + "}:list";
            refill();
        }

        void refill() {
            for (int round = 0; round < 10; round++) {
                String[] ids = new String[10_000];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = Long.toString(next++);
                }
                client.rpush(key, ids);
            }
        }

        List<String> pop(int n) {
            List<String> got = client.lpop(key, n);
            if (got == null || got.size() < n) {
                refill();
            }
            return got;
        }

        @TearDown
        public void close() {
            client.del(key);
        }
    }

    @Benchmark
    @Threads(1)
    public long[] take1(QuietPool p) {
        return p.take(1);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public long[] take1000(Pool p) {
        return p.take(BATCH);
    }

    @Benchmark
    @Threads(1)
    public List<String> rawLpop1(RawList r) {
        return r.pop(1);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public List<String> rawLpop1000(RawList r) {
        return r.pop(BATCH);
    }
}
