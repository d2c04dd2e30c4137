package io.github.idworker.benchmarks;

import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialOptions;
import io.github.idworker.snowflake.MillisClock;
import org.h2.jdbcx.JdbcDataSource;
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

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Serial numbers per second: strict serials ({@link RedisSerialNumbers}, one Lua call per {@code next(rule)} and
 * per {@code next(rule, 100)} batch) beside a plain Redis {@code INCR} round trip through the same Jedis client
 * (the Redis state of {@link RedisSequenceBenchmark}),
 * and local serials ({@link LocalSerialNumbers}, in process) — all in one run, one thread each. Scores are serial
 * strings per second; batches count 100 per call ({@code @OperationsPerInvocation}). The strict figures include
 * formatting the strings ({@code ORD20261123000000000042}), the demand counter and, with {@code checkRunId=true}
 * (the production default), the {@code INFO server} call that refuses a stock restored from an old snapshot.
 *
 * <p>Redis: {@code 127.0.0.1:6379} when it answers, otherwise an embedded Redis (see {@link BenchmarkRedis}).
 * The rule table and high-waters are in in-memory H2 through a real {@link JdbcSerialStore}; refills take up to
 * a million numbers, so they are rare and the figure is the steady per-call cost. Keys and rows use a random rule
 * name and are deleted when the trial ends.
 *
 * <pre>
 * mvn -q -pl idworker-benchmarks -am package -DskipTests
 * java -jar idworker-benchmarks/target/benchmarks.jar SerialBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class SerialBenchmark {

    static final int BATCH = 100;
    static final String KEY_PREFIX = RedisSequenceBenchmark.KEY_PREFIX;

    private static JdbcSerialStore store() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:serial-bench;DB_CLOSE_DELAY=-1");
        JdbcSerialStore store = new JdbcSerialStore(dataSource);
        store.createSchemaIfMissing();
        return store;
    }

    private static SerialRule newRule(JdbcSerialStore store) {
        String name = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        return store.register(SerialRule.builder(name).prefix("ORD").datePattern("yyyyMMdd").width(12)
                .reset("daily").zone("Asia/Shanghai").minBatch(SerialRule.MAX_BATCH_LIMIT)
                .maxBatch(SerialRule.MAX_BATCH_LIMIT).critical(100_000).build());
    }

    /** Strict serials of one rule over the shared client, with or without the run-id check. */
    @State(Scope.Benchmark)
    public static class Strict {

        @Param({"true", "false"})
        public boolean checkRunId;

        RedisSerialNumbers serials;
        SerialRule rule;
        private JdbcSerialStore store;
        private UnifiedJedis client;

        @Setup
        public void open(RedisSequenceBenchmark.Redis redis) {
            client = redis.client;
            store = store();
            rule = newRule(store);
            serials = new RedisSerialNumbers(redis.redis.executor(redis.client), store, new SerialRules(store, Duration.ofSeconds(30), "bench"),
                    RedisSerialOptions.builder().keyPrefix(KEY_PREFIX).checkRunId(checkRunId).build());
        }

        @TearDown
        public void close() {
            System.out.println("Strict serials of " + rule.name() + ": " + serials.refills() + " refill(s), "
                    + serials.waitedCalls() + " call(s) waited");
            serials.close();
            String tag = "{" + KEY_PREFIX + ":serial:" + rule.name() + "}";
            for (String key : client.keys(tag + "*")) {
                client.del(key);
            }
            store.deleteRule(rule.name());
        }
    }

    /** Local serials of one rule. */
    @State(Scope.Benchmark)
    public static class Local {
        LocalSerialNumbers serials;
        SerialRule rule;
        private JdbcSerialStore store;

        @Setup
        public void open() {
            store = store();
            rule = newRule(store);
            serials = new LocalSerialNumbers(store, new SerialRules(store, Duration.ofSeconds(30), "bench"),
                    MillisClock.SYSTEM);
        }

        @TearDown
        public void close() {
            serials.close();
            store.deleteRule(rule.name());
        }
    }

    @Benchmark
    @Threads(1)
    public String strictNext(Strict s) {
        return s.serials.next(s.rule.name());
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public List<String> strictNext100(Strict s) {
        return s.serials.next(s.rule.name(), BATCH);
    }

    @Benchmark
    @Threads(1)
    public long baselineIncr(RedisSequenceBenchmark.Redis r) {
        return r.client.incr(r.incrKey);
    }

    @Benchmark
    @Threads(1)
    public String localNext(Local l) {
        return l.serials.next(l.rule.name());
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public List<String> localNext100(Local l) {
        return l.serials.next(l.rule.name(), BATCH);
    }
}
