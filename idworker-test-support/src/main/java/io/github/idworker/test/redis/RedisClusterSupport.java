package io.github.idworker.test.redis;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;
import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts {@code redis-server} processes for tests: a single server that a test may kill and start again
 * ({@link #startServer}), and a 3-master Redis Cluster on loopback ports ({@link #startCluster()}), created
 * with {@code redis-cli --cluster create}. Nothing persists: {@code --save "" --appendonly no}, in a temporary
 * directory deleted by {@link #close()}.
 */
public final class RedisClusterSupport implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Path dir;
    private final List<Integer> ports;
    private final List<Process> processes;
    private final Thread killer;

    private RedisClusterSupport(Path dir, List<Integer> ports, List<Process> processes) {
        this.dir = dir;
        this.ports = ports;
        this.processes = processes;
        this.killer = new Thread(() -> processes.forEach(Process::destroyForcibly), "redis-cluster-kill");
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /**
     * Starts three cluster-enabled {@code redis-server}s on free loopback ports, joins them into a cluster of three
     * masters without replicas and waits for {@code cluster_state:ok} on every node. Needs {@code redis-server}
     * and {@code redis-cli} on the PATH.
     */
    public static RedisClusterSupport startCluster() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("idworker-redis-cluster-");
        List<Integer> ports = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                int port = freePort();
                ports.add(port);
                processes.add(startServer("redis-server", port, dir, List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "5000")));
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            ports.forEach(p -> create.add("127.0.0.1:" + p));
            create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            Process cli = new ProcessBuilder(create).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("cluster-create.log").toFile()).start();
            if (!cli.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || cli.exitValue() != 0) {
                cli.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create failed: "
                        + Files.readString(dir.resolve("cluster-create.log")));
            }
            for (int port : ports) {
                awaitClusterOk(port);
            }
            return new RedisClusterSupport(dir, ports, processes);
        } catch (IOException | InterruptedException | RuntimeException e) {
            processes.forEach(Process::destroyForcibly);
            deleteRecursively(dir);
            throw e;
        }
    }

    /** The cluster's nodes, for a cluster client. */
    public Set<HostAndPort> nodes() {
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        ports.forEach(p -> nodes.add(new HostAndPort("127.0.0.1", p)));
        return nodes;
    }

    /** A new cluster client; the caller closes it. */
    public UnifiedJedis newClient() {
        return new JedisCluster(nodes());
    }

    /** Kills every node and deletes their directory. */
    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        deleteRecursively(dir);
    }

    /**
     * Starts {@code binary} as a Redis server on {@code 127.0.0.1:port} in {@code dir}, without persistence, and
     * waits until it answers {@code PING}. Its output goes to {@code redis-<port>.log} in {@code dir}.
     */
    public static Process startServer(String binary, int port, Path dir, List<String> extraArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        cmd.addAll(extraArgs);
        File log = dir.resolve("redis-" + port + ".log").toFile();
        Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                if ("PONG".equals(jedis.ping())) {
                    return process;
                }
            } catch (RuntimeException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("redis-server on port " + port + " did not start: "
                            + Files.readString(log.toPath()), notYet);
                }
            }
            sleep(50);
        }
    }

    /**
     * The {@code redis-server} on the PATH, or else the binary bundled with embedded-redis, so tests that kill
     * and restart a server run on a machine without Redis installed.
     */
    public static synchronized String redisServerBinary() {
        try {
            return ExecutableProvider.newExecutableInPath("redis-server").get().getAbsolutePath();
        } catch (IOException notOnPath) {
            // written once per JVM: embedded-redis writes a new copy at every call, and a copy being written while
            // another test forks a process cannot be run ("Text file busy"), as EmbeddedRedisProcess found
            if (bundled == null || !bundled.canExecute()) {
                try {
                    File written = ExecutableProvider.newJarResourceProvider().get();
                    written.setExecutable(true);
                    bundled = written;
                } catch (IOException e) {
                    throw new UncheckedIOException("no redis-server on the PATH and none bundled with embedded-redis",
                            e);
                }
            }
            return bundled.getAbsolutePath();
        }
    }

    private static @Nullable File bundled;

    /** A loopback port nothing listens on right now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /** Kills a server started by {@link #startServer} like a crash ({@code SIGKILL}) and waits until it is gone. */
    public static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server pid " + process.pid() + " did not die");
        }
    }

    public static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    private static void awaitClusterOk(int port) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String info = "";
        while (System.nanoTime() < deadline) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                info = jedis.clusterInfo();
                if (info.contains("cluster_state:ok")) {
                    return;
                }
            } catch (RuntimeException notYet) {
                info = notYet.toString();
            }
            sleep(100);
        }
        throw new IllegalStateException("cluster node 127.0.0.1:" + port + " never reached cluster_state:ok: " + info);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
