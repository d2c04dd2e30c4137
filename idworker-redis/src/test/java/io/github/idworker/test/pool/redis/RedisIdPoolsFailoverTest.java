package io.github.idworker.test.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ID pools through a fail-over to a replica that lacks the last takes (LPOPs) and the last append, and through a
 * fail-back to the old master, as {@code RedisFailoverBackTest} runs it for serials: A is master, B its replica;
 * B is promoted while A still serves takes and a refill; the nodes move to B; then A comes back as B's replica
 * (full resync) and is promoted back. No ID is handed out twice, and every take is above every take before it.
 * (Adversarial review: verified to hold.)
 */
// alone: replication links, promotions and the refill after a fail-over run on timers; beside another test
// class on the 2 cores a refill on the promoted replica once did not come within 20 s (it passes alone)
@Tag("exclusive")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisIdPoolsFailoverTest {

    private Path dir;
    private Process a;
    private Process b;
    private int portA;
    private int portB;
    private volatile int target;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("idworker-pool-failover-");
        String binary = RedisClusterSupport.redisServerBinary();
        portA = RedisClusterSupport.freePort();
        a = RedisClusterSupport.startServer(binary, portA, dir, List.of());
        portB = RedisClusterSupport.freePort();
        b = RedisClusterSupport.startServer(binary, portB, dir, List.of());
        target = portA;
    }

    @AfterEach
    void stop() throws Exception {
        RedisClusterSupport.kill(a);
        RedisClusterSupport.kill(b);
        RedisClusterSupport.deleteRecursively(dir);
    }

    private static long[] takeSoon(RedisIdPools node, String entity, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return node.take(entity, n);
            } catch (PoolEmptyException | CenterUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    @Test
    void aFailOverToAReplicaLackingTheLastTakesAndAppendAndAFailBackNeverHandOutAnIdTwice() throws Exception {
        try (PoolRedisHarness harness = new PoolRedisHarness("jdbc:h2:mem:pool-failover;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisClient.create("127.0.0.1", target));
             Jedis ja = new Jedis("127.0.0.1", portA); Jedis jb = new Jedis("127.0.0.1", portB)) {
            PoolEntity entity = harness.entity(e -> e.maxPerRequest(100).maxPerSecond(100_000).step(100)
                    .maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofHours(1)));
            jb.replicaof("127.0.0.1", portA);
            awaitLink(jb);
            RedisIdPools onA = harness.newNode();
            onA.register(entity);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (ja.llen(PoolRedisHarness.listKey(entity.key())) < 1000) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            List<long[]> takes = new ArrayList<>();
            takes.add(onA.take(entity.key(), 100));
            takes.add(onA.take(entity.key(), 100));
            assertThat(ja.waitReplicas(1, 2_000)).isEqualTo(1);
            jb.replicaofNoOne(); // B promoted, holding 800 IDs; A has not heard
            for (int i = 0; i < 4; i++) {
                takes.add(onA.take(entity.key(), 100)); // on A only: B still holds these IDs
            }
            assertThat(onA.checkNow(entity.key())).isTrue(); // an append on A only
            takes.add(onA.take(entity.key(), 100));
            assertThat(jb.llen(PoolRedisHarness.listKey(entity.key()))).as("B lacks the last takes").isEqualTo(800);

            target = portB; // the nodes follow the promotion
            RedisIdPools onB = harness.newNode();
            for (int i = 0; i < 3; i++) {
                takes.add(takeSoon(onB, entity.key(), 100));
            }
            ja.replicaof("127.0.0.1", portB); // A demoted: a full resync brings it B's data
            awaitLink(ja);
            ja.replicaofNoOne(); // B fails, A promoted back
            target = portA;
            RedisIdPools backOnA = harness.newNode();
            for (int i = 0; i < 3; i++) {
                takes.add(takeSoon(backOnA, entity.key(), 100));
            }
            List<Long> all = new ArrayList<>();
            for (long[] t : takes) {
                for (long id : t) {
                    if (!all.isEmpty()) {
                        assertThat(id).as("ID after %d IDs", all.size()).isGreaterThan(all.get(all.size() - 1));
                    }
                    all.add(id);
                }
            }
            assertThat(all).hasSize(takes.size() * 100).doesNotHaveDuplicates();
        }
    }

    private static void awaitLink(Jedis replica) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (replica.info("replication").contains("master_link_status:up")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the replica never linked: " + replica.info("replication"));
    }
}
