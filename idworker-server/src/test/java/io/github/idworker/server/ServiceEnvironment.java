package io.github.idworker.server;

import org.h2.tools.Server;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.embedded.RedisServer;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * One independent environment of the ID service for tests: a database and a Redis that outlive the instances
 * started on them, as real servers do, and instances of the sample in profile {@code external} — in this JVM or
 * as a child process that can be killed. Everything the instances create is named after a random tag (tables
 * {@code t_<tag>_*}, Redis key prefix {@code t-<tag>}), and {@link #close()} removes all of it and stops what
 * this environment started.
 *
 * <p>Either embedded ({@link #embedded()}: an H2 TCP server and an embedded Redis on free ports) or over real
 * servers ({@link #external}: a shared database and Redis, nothing started).
 */
final class ServiceEnvironment implements AutoCloseable {

    final String tag = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String keyPrefix = "t-" + tag;
    final String databaseUrl;
    final String databaseUser;
    final String redisHost;
    final int redisPort;
    private Server database;
    private final RedisServer redis;
    private Process redisProcess;
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final List<ServerJar> jars = new ArrayList<>();

    private ServiceEnvironment(String databaseUrl, String databaseUser, String redisHost, int redisPort,
                               Server database, RedisServer redis) {
        this.databaseUrl = databaseUrl;
        this.databaseUser = databaseUser;
        this.redisHost = redisHost;
        this.redisPort = redisPort;
        this.database = database;
        this.redis = redis;
    }

    /** An H2 TCP server and an embedded Redis of its own, on free loopback ports. */
    static ServiceEnvironment embedded() throws Exception {
        int dbPort = EmbeddedRedisInitializer.freePort();
        int redisPort = EmbeddedRedisInitializer.freePort();
        Server database = Server.createTcpServer("-tcpPort", Integer.toString(dbPort), "-ifNotExists").start();
        RedisServer redis = RedisServer.newRedisServer().port(redisPort).bind("127.0.0.1")
                .setting("save \"\"").setting("appendonly no").build();
        redis.start();
        return new ServiceEnvironment("jdbc:h2:tcp://127.0.0.1:" + dbPort + "/mem:svc-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1", "sa", "127.0.0.1", redisPort, database, redis);
    }

    /** Real servers shared with other tests: only this environment's tables and keys are touched. */
    static ServiceEnvironment external(String databaseUrl, String databaseUser, String redisHost, int redisPort) {
        return new ServiceEnvironment(databaseUrl, databaseUser, redisHost, redisPort, null, null);
    }

    /**
     * A shared database, and a {@code redis-server} of the machine (Redis 7 here) of this environment's own on a
     * free loopback port: an environment independent of every other one but its database server.
     */
    static ServiceEnvironment externalWithOwnRedis(String databaseUrl, String databaseUser) throws Exception {
        int port = EmbeddedRedisInitializer.freePort();
        ServiceEnvironment environment = new ServiceEnvironment(databaseUrl, databaseUser, "127.0.0.1", port, null,
                null);
        environment.redisProcess = startRedisServer(port);
        return environment;
    }

    /**
     * An H2 TCP server in this JVM and a {@code redis-server} process, each of this environment's own on a free
     * loopback port: a Redis that can be killed like a crash ({@link #restartRedisEmpty()}).
     */
    static ServiceEnvironment h2WithOwnRedis() throws Exception {
        int dbPort = EmbeddedRedisInitializer.freePort();
        int redisPort = EmbeddedRedisInitializer.freePort();
        Server database = Server.createTcpServer("-tcpPort", Integer.toString(dbPort), "-ifNotExists").start();
        ServiceEnvironment environment = new ServiceEnvironment("jdbc:h2:tcp://127.0.0.1:" + dbPort + "/mem:svc-"
                + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "127.0.0.1", redisPort, database, null);
        try {
            environment.redisProcess = startRedisServer(redisPort);
        } catch (Exception e) {
            database.stop();
            throw e;
        }
        return environment;
    }

    /** A {@code redis-server} on {@code port} of the loopback, nothing persisted, once it answers PING. */
    private static Process startRedisServer(int port) throws Exception {
        Process process = ServerJar.killedOnExit(new ProcessBuilder("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.ping();
                return process;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    process.destroyForcibly().waitFor();
                    throw new IllegalStateException("redis-server on port " + port + " did not start", e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Stops this environment's embedded Redis (until {@link #restartRedisEmpty()}). */
    void stopRedis() throws IOException {
        redis.stop();
    }

    /** Stops this environment's H2 server from taking connections; {@link #startDatabase()} opens it again. */
    void stopDatabase() {
        database.stop();
    }

    /** Opens the H2 server again on the same port; the in-memory database lived on in this JVM. */
    void startDatabase() throws SQLException {
        int port = database.getPort();
        database = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
    }

    /**
     * Kills this environment's own Redis like a crash ({@code kill -9} of a {@code redis-server} process) and starts
     * it again, empty, on the same port.
     */
    void restartRedisEmpty() throws Exception {
        if (redisProcess != null) {
            redisProcess.destroyForcibly().waitFor();
            redisProcess = startRedisServer(redisPort);
            return;
        }
        if (redis == null) {
            throw new IllegalStateException("only an environment's own Redis can be restarted");
        }
        redis.stop();
        redis.start();
    }

    String table(String what) {
        return "t_" + tag + "_" + what;
    }

    /**
     * The serial rules of profile {@code demo} ({@code order}, daily, and {@code invoice}, never reset), which the
     * server without that profile does not register: the tests of a production-like server register them so.
     */
    static final List<String> DEMO_RULES = List.of("--idworker.serial.rules.order.prefix=ORD",
            "--idworker.serial.rules.order.date-pattern=yyyyMMdd", "--idworker.serial.rules.order.width=6",
            "--idworker.serial.rules.order.reset=daily", "--idworker.serial.rules.order.zone=Asia/Shanghai",
            "--idworker.serial.rules.invoice.prefix=INV-", "--idworker.serial.rules.invoice.width=8");

    /**
     * The arguments of an instance over this environment, before the test's own: {@link #storeArguments}, the demo's
     * serial rules and segment tags created on first use (unless the test sets {@code idworker.segment.auto-create}).
     */
    List<String> arguments(String... extra) {
        List<String> arguments = new ArrayList<>(DEMO_RULES);
        if (Arrays.stream(extra).noneMatch(a -> a.startsWith("--idworker.segment.auto-create="))) {
            arguments.add("--idworker.segment.auto-create=true"); // tags created on first use, as in profile demo
        }
        arguments.addAll(Arrays.asList(extra));
        return storeArguments(arguments.toArray(String[]::new));
    }

    /**
     * Only what an instance needs to run over this environment — its database, Redis, tables, key prefix and
     * namespace, short leases — and then the test's own arguments: nothing registered that the test does not name.
     */
    List<String> storeArguments(String... extra) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0",
                "--spring.datasource.url=" + databaseUrl, "--spring.datasource.username=" + databaseUser,
                "--spring.data.redis.host=" + redisHost, "--spring.data.redis.port=" + redisPort,
                "--idworker.redis.key-prefix=" + keyPrefix, "--idworker.namespace=" + keyPrefix,
                "--idworker.lease.ttl=2s", "--idworker.lease.max-skew=100ms", "--idworker.lease.loss-guard=2100ms",
                "--idworker.segment.table=" + table("segment"), "--idworker.segment.initialize-schema=always",
                "--idworker.serial.table=" + table("serial"), "--idworker.serial.initialize-schema=always",
                "--idworker.pool.table=" + table("pool"), "--idworker.pool.initialize-schema=always",
                "--idworker.service.table=" + table("app"), "--idworker.service.initialize-schema=always"));
        // every environment's Redis starts empty, a new identity: with the default guard signed calls would be
        // refused for window + clock-tolerance after its start; a test of the guard sets its own
        if (Arrays.stream(extra).noneMatch(a -> a.startsWith("--idworker.service.store-reset-guard="))) {
            arguments.add("--idworker.service.store-reset-guard=0s");
        }
        arguments.addAll(Arrays.asList(extra));
        return arguments;
    }

    /** An instance in this JVM, profile {@code external}; closed by {@link #close()} unless closed before. */
    ConfigurableApplicationContext start(String... extra) {
        return startWithProfile("external", extra);
    }

    /** An instance in this JVM with {@code profile}; closed by {@link #close()} unless closed before. */
    ConfigurableApplicationContext startWithProfile(String profile, String... extra) {
        // as command-line arguments: they must win over the profile's own files
        ConfigurableApplicationContext context = new SpringApplicationBuilder(IdWorkerServerApplication.class)
                .profiles(profile).run(arguments(extra).toArray(String[]::new));
        contexts.add(context);
        return context;
    }

    static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /**
     * An instance in a child JVM on {@code port}, profile {@code external}, its output in {@code log}; killed by
     * {@link #close()} if still alive.
     */
    Process startProcess(int port, Path log, String... extra) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), IdWorkerServerApplication.class.getName(),
                "--spring.profiles.active=external"));
        List<String> arguments = arguments(extra);
        arguments.replaceAll(a -> a.equals("--server.port=0") ? "--server.port=" + port : a);
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(process);
        return process;
    }

    /**
     * An instance from the built jar ({@link ServerJar}) on {@code port}, configured by {@link #storeArguments} and
     * {@code extra} as environment variables alone, no profile; killed by {@link #close()} if still alive.
     */
    ServerJar startJar(int port, Path log, String... extra) throws IOException {
        ServerJar server = ServerJar.start(port, environmentVariables(extra), log);
        jars.add(server);
        return server;
    }

    /**
     * {@link #storeArguments} as environment variables, the way a deployment sets them:
     * {@code --idworker.lease.max-skew=1s} becomes {@code IDWORKER_LEASE_MAXSKEW=1s} (dots to underscores, dashes
     * dropped, upper case). Names that would not bind back to the same property — upper case, '_' or other
     * characters in a name or map key — are refused.
     */
    Map<String, String> environmentVariables(String... extra) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (String argument : storeArguments(extra)) {
            int equals = argument.indexOf('=');
            String name = argument.startsWith("--") && equals > 2 ? argument.substring(2, equals) : "";
            if (!name.matches("[a-z0-9.-]+")) {
                throw new IllegalArgumentException("not expressible as an environment variable: " + argument);
            }
            if (!name.equals("server.port")) {
                variables.put(name.toUpperCase(Locale.ROOT).replace('.', '_').replace("-", ""),
                        argument.substring(equals + 1));
            }
        }
        return variables;
    }

    @Override
    public void close() throws Exception {
        for (ServerJar server : jars) {
            server.close();
        }
        for (ConfigurableApplicationContext context : contexts) {
            context.close();
        }
        for (Process process : processes) {
            process.destroyForcibly().waitFor();
        }
        try {
            JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(databaseUrl, databaseUser, ""));
            for (String table : List.of("segment", "serial_period", "serial", "pool", "app")) {
                jdbc.sql("DROP TABLE IF EXISTS " + table(table)).update();
            }
        } finally {
            try (Jedis jedis = new Jedis(redisHost, redisPort)) {
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page = jedis.scan(cursor, new ScanParams().match("*" + keyPrefix + "*")
                            .count(1000));
                    if (!page.getResult().isEmpty()) {
                        jedis.del(page.getResult().toArray(String[]::new));
                    }
                    cursor = page.getCursor();
                } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            } finally {
                if (redis != null) {
                    redis.stop();
                }
                if (redisProcess != null) {
                    redisProcess.destroyForcibly().waitFor();
                }
                if (database != null) {
                    database.stop();
                }
            }
        }
    }
}
