package io.github.idworker.test.serial.redis;

import org.junit.jupiter.api.Tag;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * The same holds for Redis sequences and for the Redis lease centre. (Found by an adversarial review: 5 of 20
 * serials handed out twice.)
 *
 * <p>The three tests may run at once (JUnit's parallel execution, as -Pci's default tests have it): each has its
 * own two redis-server processes, directory and database, and spends its time waiting for replication links and
 * for a lease's renewal.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Execution(ExecutionMode.CONCURRENT)
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

    /**
     * The Redis lease centre through the same fail-back: the holder of worker id 0 renewed on A six seconds
     * after B took over, so A alone knew the later high-water; the resync brought A B's older high-water and
     * expiry back. As soon as that older lease has expired, the next borrower of worker id 0 must still start
     * above the later high-water, up to which the holder may have issued.
     */
    @Test
    void aLeaseHighWaterIsNeverRewoundByAFailBackToTheOldMaster() throws Exception {
        String ns = "f-" + UUID.randomUUID().toString().substring(0, 13);
        Duration ttl = Duration.ofSeconds(10);
        Duration skew = Duration.ofMillis(200);
        String layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 12).pinned();
        try (UnifiedJedis jedis = RedisClient.create("127.0.0.1", portA)) {
            RedisSequenceManager centre = new RedisSequenceManager(new JedisScriptExecutor(jedis), "idworker-test");
            WorkerLease[] lease = new WorkerLease[1];
            long[] highWaters = new long[2];
            int[] round = new int[1];
            failOverAndBack(() -> {
                round[0]++;
                if (round[0] == 1) {
                    lease[0] = centre.borrow(new LeaseRequest(ns, 1, UUID.randomUUID().toString(), ttl,
                            System.currentTimeMillis(), skew, "test-host", 1, layout));
                } else if (round[0] == 2) {
                    lease[0] = centre.renew(lease[0], System.currentTimeMillis() + ttl.toMillis());
                    highWaters[0] = lease[0].highWaterMillis(); // replicated to B
                } else if (round[0] == 3) {
                    sleep(6_000);
                    lease[0] = centre.renew(lease[0], System.currentTimeMillis() + ttl.toMillis());
                    highWaters[1] = lease[0].highWaterMillis(); // on A only: B was promoted
                }
            });
            // the lease as B knew it is over by any clock; the one only A knew is not
            sleep(Math.max(0, highWaters[0] + skew.toMillis() + 200 - System.currentTimeMillis()));
            assertThat(System.currentTimeMillis()).isLessThan(highWaters[1]);
            WorkerLease next = centre.borrow(new LeaseRequest(ns, 1, UUID.randomUUID().toString(), ttl,
                    System.currentTimeMillis(), skew, "test-host", 2, layout));
            assertThat(next.workerId()).isZero();
            assertThat(next.floorMillis()).as("the new holder's floor against the old holder's last high-water")
                    .isGreaterThanOrEqualTo(highWaters[1]);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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
