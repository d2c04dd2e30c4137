package io.github.idworker.benchmarks;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * How long {@link ISequenceManager#borrow} takes on each centre, measured side by side in one run: the JDBC centre
 * on in-memory H2, the Redis centre ({@link BenchmarkRedis}: the local Redis, else an embedded one), and the
 * ZooKeeper centre on one ZooKeeper server and on a three-node ensemble, both running in the benchmark's JVM
 * (Curator's TestingServer and TestingCluster, real servers with their transaction logs on disk, fsync on as
 * ZooKeeper's default; {@code -Didworker.bench.zk.fsync=no} switches it off). A borrow is the whole claim the
 * worker waits for at start and after a lost lease: for ZooKeeper a clock write, the namespace and slot reads and
 * the claiming transaction.
 *
 * <p>The namespace holds {@code slots} returned slots, all with a past high-water; each measured borrow claims the
 * lowest of them and is given back (untimed) after it, so every borrow meets the same state. Run:
 * {@code mvn -q -pl idworker-benchmarks -am package -DskipTests && java -jar idworker-benchmarks/target/benchmarks.jar LeaseAcquisition}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class LeaseAcquisitionBenchmark {

    /** The centre under measurement. */
    public enum Centre { JDBC_H2, REDIS, ZOOKEEPER_SERVER, ZOOKEEPER_ENSEMBLE }

    private static final Duration TTL = Duration.ofSeconds(15);
    private static final Duration SKEW = Duration.ofSeconds(1);

    @Param
    public Centre centre;

    /** Slots the namespace has had: the ZooKeeper centre reads every slot's record on a borrow. */
    @Param({"16", "1024"})
    public int slots;

    private ISequenceManager manager;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private Runnable cleanUp = () -> { };
    private String namespace;
    /** The lease the last {@link #borrow()} took, until {@link #giveBack()} returns it. */
    private @Nullable WorkerLease lease;

    @Setup(Level.Trial)
    public void open() throws Exception {
        namespace = "bench-lease-" + UUID.randomUUID().toString().substring(0, 8);
        switch (centre) {
            case JDBC_H2 -> {
                JdbcDataSource dataSource = new JdbcDataSource();
                dataSource.setURL(LeasedWorkers.URL);
                JdbcSequenceManager jdbc = new JdbcSequenceManager(dataSource);
                jdbc.createSchemaIfMissing();
                manager = jdbc;
            }
            case REDIS -> {
                BenchmarkRedis redis = BenchmarkRedis.open();
                resources.add(redis);
                UnifiedJedis jedis = redis.newClient();
                resources.add(0, jedis);
                RedisSequenceManager redisManager = new RedisSequenceManager(new JedisScriptExecutor(jedis), "idworker-bench");
                manager = redisManager;
                cleanUp = () -> jedis.del(redisManager.leaseKey(namespace));
                System.out.println("centre: " + redis.description);
            }
            case ZOOKEEPER_SERVER, ZOOKEEPER_ENSEMBLE -> {
                System.setProperty("zookeeper.forceSync", System.getProperty("idworker.bench.zk.fsync", "yes"));
                String connectString;
                if (centre == Centre.ZOOKEEPER_SERVER) {
                    TestingServer server = new TestingServer(true);
                    resources.add(server);
                    connectString = server.getConnectString();
                } else {
                    List<InstanceSpec> specs = new ArrayList<>();
                    for (int id = 1; id <= 3; id++) {
                        specs.add(new InstanceSpec(null, -1, -1, -1, true, id, -1, -1));
                    }
                    TestingCluster cluster = new TestingCluster(specs);
                    cluster.start();
                    resources.add(cluster);
                    connectString = cluster.getConnectString();
                }
                CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 15_000, 5_000,
                        new RetryNTimes(3, 100));
                client.start();
                client.blockUntilConnected(30, TimeUnit.SECONDS);
                resources.add(0, client);
                manager = new ZookeeperSequenceManager(client, "/idworker-bench", Duration.ofSeconds(10));
                System.out.println("centre: ZooKeeper " + connectString + ", fsync "
                        + System.getProperty("zookeeper.forceSync"));
            }
            default -> throw new IllegalStateException("unknown centre " + centre);
        }
        // every slot once claimed and returned with a past high-water: the steady state of a running namespace
        List<WorkerLease> all = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            all.add(manager.borrow(request()));
        }
        for (WorkerLease l : all) {
            manager.giveBack(l, l.floorMillis());
        }
    }

    /** A borrower whose clock is past every floor, so it takes the lowest returned slot. */
    private LeaseRequest request() {
        return new LeaseRequest(namespace, slots, UUID.randomUUID().toString(), TTL,
                System.currentTimeMillis() + 120_000, SKEW, "bench", ProcessHandle.current().pid(),
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, Integer.numberOfTrailingZeros(slots), 12).pinned());
    }

    @Benchmark
    public WorkerLease borrow() {
        lease = manager.borrow(request());
        return lease;
    }

    @TearDown(Level.Invocation)
    public void giveBack() {
        // runs after each borrow(), which set it
        WorkerLease taken = Objects.requireNonNull(lease);
        manager.giveBack(taken, taken.floorMillis());
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        cleanUp.run();
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
