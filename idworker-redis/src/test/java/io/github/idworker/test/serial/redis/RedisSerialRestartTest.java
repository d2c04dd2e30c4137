package io.github.idworker.test.serial.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.segment.SequenceCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Strict serials across restarts of a {@code redis-server} of the test's own: a restart that loses every key
 * while four nodes call, and a restart that restores an older snapshot (the stock rewound). Numbering continues
 * above everything issued before: gaps, never reuse. With the run-id check off the snapshot case does reissue,
 * which shows what the check is for.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisSerialRestartTest {

    private SerialRedisHarness harness;
    private Path dir;
    private int port;
    private volatile Process server;

    @BeforeEach
    void start() throws Exception {
        dir = Files.createTempDirectory("idworker-serial-restart-");
        port = RedisClusterSupport.freePort();
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        harness = new SerialRedisHarness("jdbc:h2:mem:serial-restart;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisClient.create("127.0.0.1", port));
    }

    @AfterEach
    void stop() throws Exception {
        harness.close();
        RedisClusterSupport.kill(server);
        RedisClusterSupport.deleteRecursively(dir);
    }

    private void restart() throws Exception {
        RedisClusterSupport.kill(server);
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        harness.reconnectAdmin();
    }

    @Test
    void fourNodesKeepUniqueFirstComeFirstServedNumbersWhileRedisRestartsEmpty() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("X").width(9).minBatch(30).maxBatch(30).critical(10));
        List<RedisSerialNumbers> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(harness.newNode(SerialRedisHarness.options().maxWait(Duration.ofSeconds(20)).build()));
        }
        ConcurrentLinkedQueue<SequenceCalls.Call> calls = new ConcurrentLinkedQueue<>();
        AtomicLong outages = new AtomicLong();
        long[] window = new long[2];
        Thread restarter = new Thread(() -> {
            try {
                while (calls.size() < 2_000) {
                    Thread.sleep(5);
                }
                window[0] = System.nanoTime();
                restart();
                window[1] = System.nanoTime();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "redis-restart");
        restarter.start();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CyclicBarrier go = new CyclicBarrier(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                RedisSerialNumbers node = nodes.get(c);
                futures.add(pool.submit(() -> {
                    go.await(30, TimeUnit.SECONDS);
                    int done = 0;
                    while (done < 1_500) {
                        int count = ThreadLocalRandom.current().nextInt(4) == 0 ? 5 : 1;
                        long begin = System.nanoTime();
                        List<String> got;
                        try {
                            got = node.next(rule.name(), count);
                        } catch (CenterUnavailableException e) {
                            outages.incrementAndGet();
                            Thread.sleep(5);
                            continue;
                        }
                        long end = System.nanoTime();
                        long first = SerialRedisHarness.number(rule, got.get(0));
                        calls.add(new SequenceCalls.Call(client, begin, end, first, first + count - 1));
                        done++;
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            restarter.join();
        }
        assertThat(window[1]).as("the restart happened while the nodes ran").isPositive();
        SequenceCalls.assertUnique(calls);
        SequenceCalls.assertFirstComeFirstServed(calls);
        List<SequenceCalls.Call> before = calls.stream().filter(c -> c.endNanos() < window[0]).toList();
        List<SequenceCalls.Call> after = calls.stream().filter(c -> c.startNanos() > window[1]).toList();
        assertThat(before).isNotEmpty();
        assertThat(after).isNotEmpty();
        long highestBefore = SequenceCalls.highest(before);
        assertThat(after).allSatisfy(c -> assertThat(c.first()).isGreaterThan(highestBefore));
        assertThat(harness.newStore().highWater(rule.name(), "all").orElseThrow())
                .isGreaterThanOrEqualTo(SequenceCalls.highest(calls));
        System.out.printf("SERIAL-RESULT redis restart without data: %d calls (%d before, %d after), %d calls failed "
                + "while Redis was down, 0 numbers reissued%n", calls.size(), before.size(), after.size(), outages.get());
    }

    @Test
    void aRestartThatRestoresAnOlderSnapshotNeverReissuesNumbers() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("S").width(6).minBatch(1_000).maxBatch(1_000).critical(10));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().build());
        node.next(rule.name(), 100);
        awaitRefillLockReleased(rule);
        harness.admin().sendCommand(Protocol.Command.SAVE); // the snapshot holds lo = 100
        List<String> more = node.next(rule.name(), 200);
        assertThat(more.get(199)).isEqualTo("S000300");
        restart(); // loads dump.rdb: the stock is back, rewound to 100
        assertThat(harness.admin().hget(SerialRedisHarness.stockKey(rule.name(), "all"), "lo"))
                .as("the snapshot rewound the stock").isEqualTo("100");
        RedisSerialNumbers after = harness.newNode(SerialRedisHarness.options().build());
        assertThat(after.next(rule.name())).as("above the database's high-water, not 101").isEqualTo("S001001");
    }

    @Test
    void withoutTheRunIdCheckTheRewoundStockWouldReissue() throws Exception {
        SerialRule rule = harness.newRule(b -> b.prefix("U").width(6).minBatch(1_000).maxBatch(1_000).critical(10));
        RedisSerialNumbers node = harness.newNode(SerialRedisHarness.options().checkRunId(false).build());
        node.next(rule.name(), 100);
        awaitRefillLockReleased(rule);
        harness.admin().sendCommand(Protocol.Command.SAVE);
        node.next(rule.name(), 200);
        restart();
        RedisSerialNumbers unchecked = harness.newNode(SerialRedisHarness.options().checkRunId(false).build());
        assertThat(unchecked.next(rule.name())).as("what check-run-id=false risks").isEqualTo("U000101");
    }

    /**
     * The first call returns as soon as its refill installed the stock, a moment before the refill releases its
     * lock; a snapshot taken in that moment would bring the lock back with the stock and hold later refills until
     * the lock expires (lock-ttl, 10 s), longer than a call waits.
     */
    private void awaitRefillLockReleased(SerialRule rule) {
        String lock = SerialRedisHarness.stockKey(rule.name(), "all") + ":lock";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (harness.admin().exists(lock)) {
            assertThat(System.nanoTime()).as("refill lock released").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
