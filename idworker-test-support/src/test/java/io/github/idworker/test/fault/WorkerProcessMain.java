package io.github.idworker.test.fault;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.IdWorkerException;
import io.github.idworker.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker process of the fault tests: leases a worker id from the centre named on the command line, issues
 * ids at a steady rate and appends each to a binary file (8 bytes, big-endian), so the test can check the union
 * of all processes for duplicates.
 *
 * <p>It reports on stdout, one line each: {@code LEASE worker=… floor=… hw=…} whenever its lease changes,
 * {@code STATUS issued=… errors=… fenceTrips=… switches=…} every 200 ms, {@code ERROR <exception>} for the first
 * of each kind, {@code STOPPED} after a graceful stop. It obeys stdin: {@code clock <deltaMs>} shifts its clock,
 * {@code stop} returns its lease and exits.
 *
 * <p>Arguments: {@code centre=jdbc|redis|redis-cluster}, {@code url=<jdbc url | host:port[,host:port…]>},
 * {@code ns=…}, {@code out=<file>}, {@code rate=<ids per second>}, {@code ttlMs=…}, {@code workerBits=…},
 * {@code policy=switch|fail}.
 */
public final class WorkerProcessMain {

    private static final AtomicLong clockOffset = new AtomicLong();
    private static volatile boolean running = true;

    private WorkerProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        long ttlMs = Long.parseLong(a.getOrDefault("ttlMs", "2000"));
        int rate = Integer.parseInt(a.getOrDefault("rate", "50000"));
        WorkerOptions options = WorkerOptions.builder()
                .namespace(a.get("ns"))
                .layout(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41,
                        Integer.parseInt(a.getOrDefault("workerBits", "2")), 12))
                .leaseTtl(Duration.ofMillis(ttlMs))
                .maxSkew(Duration.ofMillis(200))
                .fenceWait(Duration.ofMillis(300))
                .backwardsPolicy("fail".equals(a.get("policy")) ? BackwardsPolicy.FAIL : BackwardsPolicy.SWITCH_WORKER)
                .clock(() -> System.currentTimeMillis() + clockOffset.get())
                .shutdownHook(false)
                .build();
        String centre = a.get("centre");
        ISequenceManager manager;
        AutoCloseable client;
        if ("jdbc".equals(centre)) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(a.get("url"));
            config.setUsername(a.getOrDefault("user", ""));
            config.setPassword("");
            config.setMaximumPoolSize(2);
            config.setConnectionTimeout(1000);
            config.setInitializationFailTimeout(-1);
            HikariDataSource ds = new HikariDataSource(config);
            manager = new JdbcSequenceManager(ds);
            client = ds;
        } else {
            UnifiedJedis jedis = redisClient(centre, a.get("url"));
            manager = new RedisSequenceManager(new JedisScriptExecutor(jedis), "idworker");
            client = jedis;
        }
        AbstractIdWorker worker = "jdbc".equals(centre) ? new DBIdWorker(manager, options) : new RedisIdWorker(manager, options);

        Thread stdin = new Thread(WorkerProcessMain::readCommands, "stdin");
        stdin.setDaemon(true);
        stdin.start();

        startWithRetry(worker);
        Thread status = new Thread(() -> report(worker), "status");
        status.setDaemon(true);
        status.start();

        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(a.get("out"), true), 1 << 16))) {
            issue(worker, out, rate);
            out.flush();
        }
        worker.close();
        printStatus(worker);
        System.out.println("STOPPED");
        System.out.flush();
        client.close();
        System.exit(0);
    }

    private static UnifiedJedis redisClient(String centre, String url) {
        Set<HostAndPort> nodes = new HashSet<>();
        for (String hp : url.split(",")) {
            nodes.add(HostAndPort.from(hp));
        }
        if ("redis-cluster".equals(centre)) {
            return new JedisCluster(nodes);
        }
        return new JedisPooled(nodes.iterator().next());
    }

    /** A process that joins a full namespace waits for a slot to come free, as a restarted pod would. */
    private static void startWithRetry(AbstractIdWorker worker) throws InterruptedException {
        while (running) {
            try {
                worker.start();
                return;
            } catch (IdWorkerException e) {
                error(e);
                Thread.sleep(100);
            }
        }
    }

    // written by the issuing thread only, read by the status thread
    private static volatile long issued;
    private static volatile long errors;
    private static final Set<String> errorKinds = new HashSet<>();

    /** Issues about {@code rate} ids a second, in slices of 1 ms, flushing after each slice. */
    private static void issue(AbstractIdWorker worker, DataOutputStream out, int rate) throws IOException, InterruptedException {
        int perSlice = Math.max(1, rate / 1000);
        long started = System.nanoTime();
        long slices = 0;
        while (running) {
            for (int i = 0; i < perSlice && running; i++) {
                try {
                    out.writeLong(worker.nextId());
                    issued++;
                } catch (IdWorkerException | IllegalStateException e) {
                    errors++;
                    error(e);
                    Thread.sleep(20);
                }
            }
            out.flush();
            slices++;
            long ahead = started + slices * 1_000_000L - System.nanoTime();
            if (ahead > 0) {
                Thread.sleep(ahead / 1_000_000L, (int) (ahead % 1_000_000L));
            }
        }
    }

    private static synchronized void error(Exception e) {
        String kind = e.getClass().getSimpleName();
        if (errorKinds.add(kind)) {
            System.out.println("ERROR " + kind + ": " + e.getMessage());
            System.out.flush();
        }
    }

    private static void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("clock ")) {
                    clockOffset.addAndGet(Long.parseLong(line.substring(6).trim()));
                    System.out.println("CLOCK offset=" + clockOffset.get());
                } else if (line.equals("stop")) {
                    running = false;
                }
            }
        } catch (IOException ignored) {
            // the test closed our stdin
        }
    }

    private static void report(AbstractIdWorker worker) {
        WorkerLease last = null;
        while (true) {
            WorkerLease lease = worker.currentLease();
            if (lease != null && (last == null || lease.workerId() != last.workerId() || !lease.owner().equals(last.owner()))) {
                System.out.println("LEASE worker=" + lease.workerId() + " floor=" + lease.floorMillis()
                        + " hw=" + lease.highWaterMillis() + " at=" + System.currentTimeMillis());
                last = lease;
            }
            printStatus(worker);
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void printStatus(AbstractIdWorker worker) {
        WorkerLease lease = worker.currentLease();
        System.out.println("STATUS issued=" + issued + " errors=" + errors + " fenceTrips=" + worker.fenceTripCount()
                + " switches=" + worker.leaseSwitchCount() + " worker=" + (lease == null ? -1 : lease.workerId())
                + " hw=" + (lease == null ? -1 : lease.highWaterMillis()) + " at=" + System.currentTimeMillis());
        System.out.flush();
    }
}
