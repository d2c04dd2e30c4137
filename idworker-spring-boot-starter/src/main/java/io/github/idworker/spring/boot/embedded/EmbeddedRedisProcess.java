package io.github.idworker.spring.boot.embedded;

import org.jspecify.annotations.Nullable;
import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis for demos and tests: the {@code redis-server} binary embedded-redis ships, run as a child process on a loopback
 * port, keeping nothing on disk. Guarantees that it is stopped only when this class is told to: embedded-redis's
 * own {@code RedisServer} stops its process from a JVM shutdown hook of its own, which runs at the same time as
 * Spring's, so on {@code SIGTERM} Redis went away while the worker was still returning its id to it.
 */
public final class EmbeddedRedisProcess {

    private static final long START_WAIT_MILLIS = 10_000;
    private static final int BUSY_RETRIES = 50;

    private static @Nullable File binary;

    private final int port;
    private final Process process;

    private EmbeddedRedisProcess(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** Starts Redis on {@code 127.0.0.1:port} and waits until it accepts connections. */
    public static EmbeddedRedisProcess start(int port) throws IOException {
        Process process = launch(List.of(binary().getAbsolutePath(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_WAIT_MILLIS);
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with status " + process.exitValue());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return new EmbeddedRedisProcess(port, process);
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IOException("redis-server did not accept connections within " + START_WAIT_MILLIS
                            + " ms");
                }
                sleep(50);
            }
        }
    }

    /**
     * The binary, written out of embedded-redis's jar once per JVM. embedded-redis writes a new copy into a new
     * temporary directory at every call (each kept until the JVM exits): with two demos or tests starting at once in
     * one JVM, a process forked by one while the other wrote its copy held the writing descriptor, and running that
     * copy failed with "Text file busy".
     */
    private static synchronized File binary() throws IOException {
        if (binary == null || !binary.canExecute()) {
            binary = ExecutableProvider.newJarResourceProvider().get();
        }
        return binary;
    }

    /**
     * Starts the process; again, up to {@value #BUSY_RETRIES} times, while Linux answers "Text file busy": a process
     * another thread forks while the binary is being written holds the writing descriptor until it runs its own
     * program, a moment later.
     */
    private static Process launch(List<String> command) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            } catch (IOException e) {
                if (attempt >= BUSY_RETRIES || !String.valueOf(e.getMessage()).contains("error=26")) {
                    throw e;
                }
                sleep(20);
            }
        }
    }

    public int port() {
        return port;
    }

    /** Stops Redis: asks it to exit, and kills it after 5 s. Idempotent. */
    public void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
