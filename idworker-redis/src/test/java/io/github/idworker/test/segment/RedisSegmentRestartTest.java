package io.github.idworker.test.segment;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis segment generator across restarts of a {@code redis-server} process of the test's own: a restart
 * without persistence (all records lost) while four clients call, and a restart that restores an older snapshot
 * (the range rewound). Numbering continues above everything issued before: gaps, never reuse.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisSegmentRestartTest {

    private static final String PREFIX = RedisSegmentIdGeneratorTest.PREFIX;

    private JdbcSegmentAllocatorStore store;
    private Path dir;
    private int port;
    private volatile Process server;

    @BeforeEach
    void start() throws Exception {
        store = new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-redis-restart;DB_CLOSE_DELAY=-1", "sa", "");
        dir = Files.createTempDirectory("idworker-segment-restart-");
        port = RedisClusterSupport.freePort();
        startServer();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            RedisClusterSupport.kill(server);
        }
        RedisClusterSupport.deleteRecursively(dir);
        store.close();
    }

    private void startServer() throws Exception {
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
    }

    private void restart() throws Exception {
        RedisClusterSupport.kill(server);
        startServer();
    }

    private UnifiedJedis newClient() {
        return RedisClient.create("127.0.0.1", port);
    }

    private String newTag(long startAfter) {
        String tag = "x-" + UUID.randomUUID().toString().substring(0, 13);
        store.newAllocator(false).register(tag, startAfter, 100);
        return tag;
    }

    @Test
    void fourClientsOfFourThreadsKeepUniqueFirstComeFirstServedNumbersWhileRedisRestartsWithoutItsData() throws Exception {
        String tag = newTag(0);
        RedisSegmentClients clients = new RedisSegmentClients(4, this::newClient, () -> store.newAllocator(false), tag,
                RedisSegmentOptions.builder().keyPrefix(PREFIX).step(50).maxWait(Duration.ofSeconds(20)).build());
        long[] restartWindow = new long[2];
        Thread restarter = new Thread(() -> {
            try {
                while (clients.calls.size() < 4_000) { // a third of the calls: the restart lands mid-run
                    Thread.sleep(5);
                }
                restartWindow[0] = System.nanoTime();
                restart();
                restartWindow[1] = System.nanoTime();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "redis-restart");
        try {
            restarter.start();
            clients.run(4, 800, true);
            restarter.join();
        } finally {
            clients.close();
        }
        assertThat(restartWindow[1]).as("restart happened while the clients ran").isPositive();
        assertThat(clients.coalescedCalls()).as("calls served together with another").isPositive();
        SequenceCalls.assertUnique(clients.calls);
        SequenceCalls.assertFirstComeFirstServed(clients.calls);
        List<SequenceCalls.Call> before = clients.calls.stream().filter(c -> c.endNanos() < restartWindow[0]).toList();
        List<SequenceCalls.Call> after = clients.calls.stream().filter(c -> c.startNanos() > restartWindow[1]).toList();
        assertThat(before).isNotEmpty();
        assertThat(after).isNotEmpty();
        long highestBefore = SequenceCalls.highest(before);
        assertThat(after).allSatisfy(c -> assertThat(c.first()).isGreaterThan(highestBefore));
        assertThat(store.storedMaxId(tag)).isGreaterThanOrEqualTo(SequenceCalls.highest(clients.calls));
        System.out.printf("redis segment restart: %d calls (%d before, %d after the restart), %d calls failed while "
                        + "Redis was down, %d ranges installed, %d discarded%n", clients.calls.size(), before.size(),
                after.size(), clients.outages.get(), clients.installedRanges(), clients.discardedRanges());
    }

    @Test
    void aRestartWithoutDataContinuesAboveTheDatabaseMaxId() throws Exception {
        String tag = newTag(0);
        RedisSegmentOptions options = RedisSegmentOptions.builder().keyPrefix(PREFIX).step(100).build();
        long last;
        try (UnifiedJedis jedis = newClient()) {
            RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(false), tag, options);
            last = g.nextIds(30)[29];
            assertThat(last).isEqualTo(30);
            awaitRangeAhead(g); // 70 left of 100: a range ahead went in, and the table's max_id with it
        }
        long maxId = store.storedMaxId(tag);
        restart();
        try (UnifiedJedis jedis = newClient()) {
            assertThat(jedis.exists(RedisSegmentIdGenerator.keyOf(PREFIX, tag, "range"))).isFalse();
            RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(false), tag, options);
            assertThat(g.nextId()).isEqualTo(maxId + 1);
        }
    }

    @Test
    void aRestartThatRestoresAnOlderSnapshotNeverReissuesNumbers() throws Exception {
        String tag = newTag(0);
        RedisSegmentOptions options = RedisSegmentOptions.builder().keyPrefix(PREFIX).step(1_000).build();
        String rangeKey = RedisSegmentIdGenerator.keyOf(PREFIX, tag, "range");
        long highest;
        try (UnifiedJedis jedis = newClient()) {
            RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(false), tag, options);
            g.nextIds(100);
            jedis.sendCommand(Protocol.Command.SAVE); // the snapshot holds v_l = 100
            highest = g.nextIds(200)[199];
            assertThat(highest).isEqualTo(300);
            awaitRangeAhead(g); // installed after the snapshot: lost with the restart, a gap
        }
        long maxId = store.storedMaxId(tag);
        restart(); // loads dump.rdb: the range is back, rewound to 100
        try (UnifiedJedis jedis = newClient()) {
            assertThat(jedis.hget(rangeKey, "v_l")).as("the snapshot rewound the range").isEqualTo("100");
            RedisSegmentIdGenerator g = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(false), tag, options);
            long next = g.nextId();
            assertThat(next).isGreaterThan(highest).isEqualTo(maxId + 1);
        }
    }

    /** Waits until {@code g} installed a range ahead, so that the table's {@code max_id} holds still. */
    private static void awaitRangeAhead(RedisSegmentIdGenerator g) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (g.installedAhead() < 1) {
            assertThat(System.nanoTime()).as("a range installed ahead within 10 s").isLessThan(deadline);
            Thread.sleep(2);
        }
    }
}
