package io.github.idworker.test.serial.redis;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fail-over and a fail-back with the old master's process alive, as Sentinel does it: A is master and hands out
 * numbers, its replica B is promoted while A still serves a few more, A comes back as B's replica (a full resync
 * brings it B's older stock, stamped with A's own run_id), then B fails and A is promoted back. The run_id alone
 * would accept the rewound stock; the identity includes {@code master_replid}, which every promotion changes.
 * (Found by an adversarial review: 5 of 20 serials handed out twice.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisFailoverBackTest {

    private Path dir;
    private Process a;
    private Process b;
    private int portA;
    private int portB;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("idworker-failover-");
        String binary = RedisClusterSupport.redisServerBinary();
        portA = RedisClusterSupport.freePort();
        a = RedisClusterSupport.startServer(binary, portA, dir, List.of());
        portB = RedisClusterSupport.freePort();
        b = RedisClusterSupport.startServer(binary, portB, dir, List.of());
    }

    @AfterEach
    void stop() throws Exception {
        RedisClusterSupport.kill(a);
        RedisClusterSupport.kill(b);
        RedisClusterSupport.deleteRecursively(dir);
    }

    /** Runs the fail-over and fail-back, calling {@code issue} on A before, between and after. */
    private void failOverAndBack(Runnable issueFive) throws Exception {
        try (Jedis ja = new Jedis("127.0.0.1", portA); Jedis jb = new Jedis("127.0.0.1", portB)) {
            jb.replicaof("127.0.0.1", portA);
            awaitLink(jb);
            issueFive.run();
            issueFive.run();
            assertThat(ja.waitReplicas(1, 2_000)).isEqualTo(1);
            jb.replicaofNoOne();              // B promoted; A has not heard yet
            issueFive.run();                  // these reach A only
            ja.replicaof("127.0.0.1", portB);  // A demoted: a full resync gives it B's data
            awaitLink(ja);
            ja.replicaofNoOne();              // B fails, A promoted back: the same process, the same run_id
            issueFive.run();
        }
    }

    @Test
    void strictSerialsNeverRepeatAfterAFailBackToTheOldMaster() throws Exception {
        try (SerialRedisHarness harness = new SerialRedisHarness("jdbc:h2:mem:failover;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisClient.create("127.0.0.1", portA))) {
            SerialRule rule = harness.newRule(r -> r.prefix("F").width(6).minBatch(100).maxBatch(100).critical(0));
            RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
            List<String> issued = new ArrayList<>();
            failOverAndBack(() -> issued.addAll(node.next(rule.name(), 5)));
            assertThat(issued).hasSize(20).doesNotHaveDuplicates();
            assertThat(issued.get(15)).as("above the database's high-water").isEqualTo("F000101");
        }
    }

    @Test
    void redisSequencesNeverRepeatAfterAFailBackToTheOldMaster() throws Exception {
        JdbcSegmentAllocatorStore store = new JdbcSegmentAllocatorStore("jdbc:h2:mem:failover-seg;DB_CLOSE_DELAY=-1",
                "sa", "");
        String tag = "f-" + UUID.randomUUID().toString().substring(0, 8);
        store.newAllocator(false).register(tag, 0, 100);
        try (UnifiedJedis jedis = RedisClient.create("127.0.0.1", portA)) {
            RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(false), tag, RedisSegmentOptions.builder().keyPrefix("idworker-test").step(100).build());
            Set<Long> seen = new HashSet<>();
            List<Long> repeated = new ArrayList<>();
            failOverAndBack(() -> {
                for (long id : g.nextIds(5)) {
                    if (!seen.add(id)) {
                        repeated.add(id);
                    }
                }
            });
            assertThat(repeated).as("numbers handed out twice").isEmpty();
            assertThat(seen).hasSize(20);
        } finally {
            store.deleteTag(tag);
            store.close();
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
