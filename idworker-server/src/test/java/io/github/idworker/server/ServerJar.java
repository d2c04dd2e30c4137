package io.github.idworker.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One instance of the ID server run from the jar this build packaged ({@code java -jar}) as a separate process,
 * configured by environment variables alone, as a deployment runs it. Guarantees: the instance sees none of the
 * configuration variables of this JVM's environment ({@code SPRING_*}, {@code IDWORKER_*}, {@code SERVER_*},
 * {@code MANAGEMENT_*}, {@code LOGGING_*}, {@code JAVA_TOOL_OPTIONS}), only those given; its output goes to its log
 * file; and an instance still alive when this JVM exits is killed then, so a test cut short leaves no server
 * running (the same for any process passed to {@link #killedOnExit}).
 */
final class ServerJar implements AutoCloseable {

    /** Where the failsafe configuration names the jar; without it, the one in {@code target/}. */
    static final String JAR_PROPERTY = "idworker.server.jar";

    private static final Set<Process> ALIVE = ConcurrentHashMap.newKeySet();
    private static final List<String> INHERITED_CONFIGURATION = List.of("SPRING_", "IDWORKER_", "SERVER_",
            "MANAGEMENT_", "LOGGING_");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static {
        // kill -9 of the test JVM aside, no server outlives it
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ALIVE.forEach(Process::destroyForcibly),
                "server-jar-reaper"));
    }

    final int port;
    final Path log;
    final Process process;

    private ServerJar(int port, Path log, Process process) {
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /** The repackaged server jar of this build; fails naming the command that makes it when there is none. */
    static Path jar() throws IOException {
        String configured = System.getProperty(JAR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path jar = Path.of(configured);
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(JAR_PROPERTY + " names no file (" + jar + "): run `mvn package` first");
            }
            return jar;
        }
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(f -> f.getFileName().toString().matches("idworker-server-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no target/idworker-server-*.jar: run `mvn package` "
                            + "or set " + JAR_PROPERTY));
        }
    }

    /**
     * Starts the jar on {@code port} with exactly {@code environment} as its configuration, writing its output to
     * {@code log}; does not wait for it to serve ({@link #awaitReady}).
     */
    static ServerJar start(int port, Map<String, String> environment, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // two cores shared by several servers, Redis and the test: a small heap, few GC threads
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + log.toAbsolutePath().getParent(),
                "-jar", jar().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.equals("JAVA_TOOL_OPTIONS")
                || INHERITED_CONFIGURATION.stream().anyMatch(name::startsWith));
        env.putAll(environment);
        env.put("SERVER_PORT", Integer.toString(port));
        return new ServerJar(port, log, killedOnExit(builder.start()));
    }

    /**
     * Registers {@code process} (a server, a {@code redis-server}) to be killed when this JVM exits, should it still
     * be alive then; returns it.
     */
    static Process killedOnExit(Process process) {
        ALIVE.add(process);
        process.onExit().thenRun(() -> ALIVE.remove(process));
        return process;
    }

    /**
     * Waits until {@code /actuator/health/readiness} answers 200; fails with the end of the log when the process
     * exits first or {@code timeout} passes.
     */
    ServerJar awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the server on port " + port + " exited with " + process.exitValue()
                        + ":\n" + tail(40));
            }
            if (status("/actuator/health/readiness") == 200) {
                return this;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the server on port " + port + " was not ready within " + timeout + ":\n" + tail(40));
    }

    /** The status of a GET of {@code path}, or -1 when nothing answers. */
    int status(String path) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** {@code kill -9}: no shutdown hook of the server runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM, as an orchestrator stops a container: the graceful shutdown runs. Returns whether the process
     * exited within {@code timeout}; kills it if not.
     */
    boolean terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        kill();
        return false;
    }

    /** Everything the server wrote so far. */
    String output() throws IOException {
        // lenient: a line cut by a kill -9 may end inside a character
        return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
    }

    /** The last {@code lines} lines the server wrote. */
    String tail(int lines) throws IOException {
        List<String> all = output().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
