package io.github.idworker.spring.boot.embedded;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The embedded Redis of demos and tests: many started at once in one JVM all come up, answer and stop. */
class EmbeddedRedisProcessTest {

    /**
     * Eight starts at the same moment, each with a forked {@code true} beside it. Before the binary was written
     * once per JVM, each start wrote its own copy while the others forked, and most runs saw "Text file busy".
     */
    @Test
    void manyStartedAtOnceInOneJvmAllAnswer() throws Exception {
        int starts = 8;
        ExecutorService pool = Executors.newFixedThreadPool(2 * starts);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<EmbeddedRedisProcess>> started = new ArrayList<>();
        List<Future<Integer>> forks = new ArrayList<>();
        List<EmbeddedRedisProcess> running = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        while (ports.size() < starts) {
            ports.add(EmbeddedRedisInitializerSupport.freePort());
        }
        try {
            for (int port : ports) {
                started.add(pool.submit(() -> {
                    go.await();
                    return EmbeddedRedisProcess.start(port);
                }));
                forks.add(pool.submit(() -> {
                    go.await();
                    return new ProcessBuilder("true").start().waitFor();
                }));
            }
            go.countDown();
            for (Future<EmbeddedRedisProcess> f : started) {
                running.add(f.get(60, TimeUnit.SECONDS));
            }
            for (Future<Integer> f : forks) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isZero();
            }
            for (EmbeddedRedisProcess redis : running) {
                assertThat(ping(redis.port())).as("PING on port %d", redis.port()).isEqualTo("+PONG");
            }
        } finally {
            // every start that came up is stopped, also those after one that failed: they have no shutdown hook
            go.countDown();
            for (Future<EmbeddedRedisProcess> f : started) {
                try {
                    EmbeddedRedisProcess redis = f.get(60, TimeUnit.SECONDS);
                    if (!running.contains(redis)) {
                        running.add(redis);
                    }
                } catch (Exception failed) {
                    // the first failure is the test's: it was thrown above
                }
            }
            running.forEach(EmbeddedRedisProcess::stop);
            pool.shutdown();
        }
        for (EmbeddedRedisProcess redis : running) {
            try (Socket socket = new Socket()) {
                assertThat(canConnect(socket, redis.port())).as("port %d after stop", redis.port()).isFalse();
            }
        }
    }

    private static String ping(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    private static boolean canConnect(Socket socket, int port) {
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (java.io.IOException refused) {
            return false;
        }
    }
}
