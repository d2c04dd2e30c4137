package io.github.idworker.spring.boot.embedded;

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

    private final int port;
    private final Process process;

    private EmbeddedRedisProcess(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** Starts Redis on {@code 127.0.0.1:port} and waits until it accepts connections. */
    public static EmbeddedRedisProcess start(int port) throws IOException {
        File binary = ExecutableProvider.newJarResourceProvider().get();
        Process process = new ProcessBuilder(List.of(binary.getAbsolutePath(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
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
