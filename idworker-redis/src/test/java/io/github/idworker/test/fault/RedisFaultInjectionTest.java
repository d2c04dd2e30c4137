package io.github.idworker.test.fault;

import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault tests over a Redis server this test starts itself ({@code redis-server} from the PATH, else the
 * binary bundled with embedded-redis), so it can also kill it and start it empty while workers run.
 */
class RedisFaultInjectionTest extends AbstractFaultInjectionTest {

    private int port;
    private Path redisDir;
    private Process redis;

    @BeforeEach
    void startRedis() throws Exception {
        port = RedisClusterSupport.freePort();
        redisDir = Files.createTempDirectory("idworker-fault-redis");
        redis = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, redisDir, List.of());
    }

    @AfterEach
    void stopRedis() throws Exception {
        RedisClusterSupport.kill(redis);
        RedisClusterSupport.deleteRecursively(redisDir);
    }

    @Override
    protected List<String> centreArgs() {
        return List.of("centre=redis", "url=127.0.0.1:" + port);
    }

    @Override
    protected int rate() {
        return 20_000;
    }

    @Override
    protected long minTotalIds() {
        return 200_000;
    }

    @Override
    protected void deleteNamespace(String namespace) {
        // the whole server goes away after each test
    }

    @Test
    void redisRestartLosingAllDataWhileWorkersRun() throws Exception {
        currentTest = "Redis restart losing all data";
        List<WorkerProcess> ps = launchAll(4);
        for (WorkerProcess p : ps) {
            p.awaitIssued(rate() / 2, Duration.ofSeconds(30));
        }
        Map<WorkerProcess, Integer> leaseLinesBefore = new HashMap<>();
        RedisClusterSupport.kill(redis);
        Thread.sleep(500);
        // with Redis gone no high-water can rise any more: these are the last ones the old holders may issue up to
        long oldHighWater = 0;
        for (WorkerProcess p : ps) {
            oldHighWater = Math.max(oldHighWater, WorkerProcess.field(p.lastStatus(), "hw"));
            leaseLinesBefore.put(p, p.linesStartingWith("LEASE").size());
        }
        long restartedAt = System.currentTimeMillis();
        redis = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, redisDir, List.of());

        for (WorkerProcess p : ps) {
            int before = leaseLinesBefore.get(p);
            p.await(l -> l.startsWith("LEASE") && p.linesStartingWith("LEASE").size() > before, Duration.ofSeconds(60));
            List<String> leases = p.linesStartingWith("LEASE");
            for (String lease : leases.subList(before, leases.size())) {
                long floor = WorkerProcess.field(lease, "floor");
                assertThat(floor).as("floor of a lease borrowed after the data loss").isGreaterThanOrEqualTo(oldHighWater);
                assertThat(floor).isGreaterThanOrEqualTo(restartedAt + TTL_MS);
            }
        }
        runUntilEnoughIds();
        stopAll();
        assertNoDuplicates();
    }
}
