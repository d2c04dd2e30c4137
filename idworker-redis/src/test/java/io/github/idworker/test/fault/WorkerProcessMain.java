package io.github.idworker.test.fault;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.IdWorkerException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.test.redis.RedisTestClients;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * One worker process of the fault tests: leases a worker id from the centre named on the command line, issues
 * ids at a steady rate from several threads at once (so switches happen under concurrent callers) and appends
 * each to a binary file (8 bytes, big-endian), so the test can check the union of all processes for duplicates.
 *
 * <p>It reports on stdout, one line each: {@code LEASE worker=… floor=… hw=…} whenever its lease changes,
 * {@code STATUS issued=… errors=… fenceTrips=… switches=…} every 200 ms ({@code issued}: calls of {@code nextId()}
 * that returned an id, counted as each returns; the file gets them at the end of each 1 ms slice), {@code ERROR <exception>} for the first
 * of each kind, {@code STOPPED} after a graceful stop. It obeys stdin: {@code clock <deltaMs>} shifts its clock,
 * {@code stop} returns its lease and exits.
 *
 * <p>Arguments: {@code centre=jdbc|redis|redis-cluster} (another module's centre has a main of its own that
 * calls {@link #run}), {@code url=<jdbc url | host:port[,host:port…]>},
 * {@code ns=…}, {@code out=<file>}, {@code rate=<ids per second>}, {@code ttlMs=…}, {@code workerBits=…},
 * {@code policy=switch|fail}, {@code threads=<issuing threads, default 4>}.
 */
public final class WorkerProcessMain {

    private static final AtomicLong clockOffset = new AtomicLong();
    private static volatile boolean running = true;

    private WorkerProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = arguments(args);
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
        run(a, manager, client, "jdbc".equals(centre) ? DBIdWorker::new : RedisIdWorker::new);
    }

    /** {@code key=value} arguments. */
    static Map<String, String> arguments(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return a;
    }

    /**
     * Runs one worker over {@code manager} until told to stop, then exits the JVM; the part every centre shares,
     * so a centre in another module (whose main builds its own manager and client) runs the same process.
     */
    static void run(Map<String, String> a, ISequenceManager manager, AutoCloseable client,
                    BiFunction<ISequenceManager, WorkerOptions, AbstractIdWorker> newWorker) throws Exception {
        long ttlMs = Long.parseLong(a.getOrDefault("ttlMs", "2000"));
        int rate = Integer.parseInt(a.getOrDefault("rate", "50000"));
        WorkerOptions options = WorkerOptions.builder()
                .namespace(a.get("ns"))
                .layout(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41,
                        Integer.parseInt(a.getOrDefault("workerBits", "2")), 12))
                .leaseTtl(Duration.ofMillis(ttlMs))
                .maxSkew(Duration.ofMillis(200))
                .lossGuard(Duration.ofMillis(ttlMs + 200))
                // also how long close() waits to return the slot: at 300 ms a rehearsal's graceful stop on MariaDB
                // (three fault classes at once) gave up, the slot expired and the restart's floor was the stored
                // high-water, 1.29 s above the last issued timestamp the test expects
                .fenceWait(Duration.ofMillis(1_000))
                .backwardsPolicy("fail".equals(a.get("policy")) ? BackwardsPolicy.FAIL : BackwardsPolicy.SWITCH_WORKER)
                .clock(() -> System.currentTimeMillis() + clockOffset.get())
                .shutdownHook(false)
                .build();
        AbstractIdWorker worker = newWorker.apply(manager, options);

        Thread stdin = new Thread(WorkerProcessMain::readCommands, "stdin");
        stdin.setDaemon(true);
        stdin.start();

        startWithRetry(worker);
        Thread status = new Thread(() -> report(worker), "status");
        status.setDaemon(true);
        status.start();

        int threads = Integer.parseInt(a.getOrDefault("threads", "4"));
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(a.get("out"), true), 1 << 16))) {
            List<Thread> issuers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread issuer = new Thread(() -> issue(worker, out, Math.max(1, rate / threads)), "issuer-" + t);
                issuers.add(issuer);
                issuer.start();
            }
            for (Thread issuer : issuers) {
                issuer.join();
            }
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
            return RedisTestClients.cluster(nodes);
        }
        HostAndPort node = nodes.iterator().next();
        return RedisTestClients.standalone(node.getHost(), node.getPort());
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

    private static final AtomicLong issued = new AtomicLong();
    private static final AtomicLong errors = new AtomicLong();
    private static final Set<String> errorKinds = new HashSet<>();

    /**
     * One issuing thread: about {@code rate} ids a second, in slices of 1 ms; each slice is written to the shared
     * file in one piece and flushed, so a killed process loses at most ids it never handed out.
     */
    private static void issue(AbstractIdWorker worker, DataOutputStream out, int rate) {
        int perSlice = Math.max(1, rate / 1000);
        long[] slice = new long[perSlice];
        long started = System.nanoTime();
        long slices = 0;
        try {
            while (running) {
                int n = 0;
                for (int i = 0; i < perSlice && running; i++) {
                    try {
                        slice[n++] = worker.nextId();
                        // counted as each call returns, not when the slice is written: a slice whose later calls
                        // wait out the fence ends seconds after its first IDs were issued, and a count at the
                        // write would show those as issued while fenced
                        issued.incrementAndGet();
                    } catch (IdWorkerException | IllegalStateException e) {
                        n--;
                        errors.incrementAndGet();
                        error(e);
                        Thread.sleep(20);
                    }
                }
                synchronized (out) {
                    for (int i = 0; i < n; i++) {
                        out.writeLong(slice[i]);
                    }
                    out.flush();
                }
                slices++;
                long ahead = started + slices * 1_000_000L - System.nanoTime();
                if (ahead > 0) {
                    Thread.sleep(ahead / 1_000_000L, (int) (ahead % 1_000_000L));
                }
            }
        } catch (IOException | InterruptedException e) {
            error(e);
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
        System.out.println("STATUS issued=" + issued.get() + " errors=" + errors.get() + " fenceTrips=" + worker.fenceTripCount()
                + " switches=" + worker.leaseSwitchCount() + " worker=" + (lease == null ? -1 : lease.workerId())
                + " hw=" + (lease == null ? -1 : lease.highWaterMillis()) + " at=" + System.currentTimeMillis());
        System.out.flush();
    }
}
