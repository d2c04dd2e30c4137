package io.github.idworker.test.review;

import org.junit.jupiter.api.Tag;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.redis.RedisTestClients;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import io.github.idworker.test.segment.SequenceCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis crashes (SIGKILL, restart without data) and hangs (SIGSTOP for 2 s, then SIGCONT: the commands queued
 * meanwhile run late, after their callers gave up) under 16 threads on 4 nodes. Every call must end with numbers
 * or a typed exception, within a bound, and no number twice, first come first served.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisOutageAttackTest {

    private JdbcSegmentAllocatorStore store;
    private Path dir;
    private int port;
    private volatile Process server;

    @BeforeEach
    void start() throws Exception {
        store = new JdbcSegmentAllocatorStore("jdbc:h2:mem:review-outage;DB_CLOSE_DELAY=-1", "sa", "");
        dir = Files.createTempDirectory("idworker-review-outage-");
        port = RedisClusterSupport.freePort();
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            new ProcessBuilder("kill", "-CONT", Long.toString(server.pid())).start().waitFor();
            RedisClusterSupport.kill(server);
        }
        RedisClusterSupport.deleteRecursively(dir);
        store.close();
    }

    @Test
    void sixteenThreadsOnFourNodesThroughACrashAndAHang() throws Exception {
        String tag = "rvo-" + UUID.randomUUID().toString().substring(0, 13);
        store.newAllocator(false).register(tag, 0, 100);
        RedisSegmentOptions opts = RedisSegmentOptions.builder().keyPrefix("idw-review").step(30)
                .maxWait(Duration.ofSeconds(1)).lockTtl(Duration.ofSeconds(3)).build();
        AtomicReference<Throwable> chaosFailure = new AtomicReference<>();
        try (ReviewRedisHarness h = new ReviewRedisHarness(4, () -> RedisTestClients.standalone("127.0.0.1", port),
                store, tag, opts)) {
            Thread chaos = new Thread(() -> {
                try {
                    Thread.sleep(700);
                    RedisClusterSupport.kill(server); // crash
                    Thread.sleep(800);
                    server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
                    Thread.sleep(700);
                    long pid = server.pid();
                    new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor(); // hang
                    Thread.sleep(2_000);
                    new ProcessBuilder("kill", "-CONT", Long.toString(pid)).start().waitFor();
                } catch (Throwable e) {
                    chaosFailure.set(e);
                }
            }, "review-outage");
            chaos.start();
            h.run(4, 2_500, r -> r < 70 ? 1 : 1 + r % 40);
            chaos.join();
            System.out.println("outage: " + h.stats() + ", table max_id " + store.storedMaxId(tag));
            assertThat(chaosFailure.get()).isNull();
            SequenceCalls.assertUnique(h.calls);
            SequenceCalls.assertFirstComeFirstServed(h.calls);
            assertThat(h.failures.keySet()).allSatisfy(k -> assertThat(k)
                    .isIn("CenterUnavailableException", "SegmentRefillTimeoutException"));
            long bound = opts.maxWait().toMillis() + 3 * RedisTestClients.SOCKET_TIMEOUT.toMillis() + 500;
            assertThat(h.longestFailureMs.get()).as("longest failed call").isLessThan(bound);
            assertThat(h.longestCallMs.get()).as("longest successful call").isLessThan(bound);
        } finally {
            store.deleteTag(tag);
        }
    }
}
