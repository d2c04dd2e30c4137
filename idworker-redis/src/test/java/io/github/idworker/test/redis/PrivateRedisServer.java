package io.github.idworker.test.redis;

import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@code redis-server} process of one test's own ({@link RedisClusterSupport#redisServerBinary()}: the one on
 * the PATH, else the binary bundled with embedded-redis), on a free loopback port in a temporary directory,
 * without persistence unless the test saves a snapshot itself. The test may kill it like a crash and start it
 * again on the same port and directory; {@link #close()} kills it and deletes the directory.
 */
final class PrivateRedisServer implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private Process process;

    private PrivateRedisServer(Path dir, int port, List<String> extraArgs) {
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
    }

    /** Starts a server with {@code extraArgs} added to its command line, e.g. a {@code --maxmemory}. */
    static PrivateRedisServer start(List<String> extraArgs) throws IOException {
        PrivateRedisServer server = new PrivateRedisServer(Files.createTempDirectory("idworker-redis-"),
                RedisClusterSupport.freePort(), List.copyOf(extraArgs));
        server.startAgain();
        return server;
    }

    int port() {
        return port;
    }

    /** A client with {@link RedisTestClients}' timeouts; the caller closes it. */
    UnifiedJedis newClient() {
        return RedisTestClients.standalone("127.0.0.1", port);
    }

    /** Freezes the server ({@code SIGSTOP}): it keeps its connections but answers nothing until {@link #thaw()}. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a frozen server go on ({@code SIGCONT}); harmless when it is not frozen. */
    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        if (process != null) {
            int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
            if (rc != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        }
    }

    /** Kills the server like a crash ({@code SIGKILL}). */
    void kill() throws InterruptedException {
        if (process != null) {
            RedisClusterSupport.kill(process);
            process = null;
        }
    }

    /** Starts the server again on the same port and directory; it loads {@code dump.rdb} when one was saved. */
    void startAgain() throws IOException {
        process = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, extraArgs);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            thaw();
        } catch (IOException e) {
            // killed below anyway
        }
        kill();
        RedisClusterSupport.deleteRecursively(dir);
    }
}
