package io.github.idworker.test.segment;

import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.segment.StaleSegmentException;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis segment generator: one strictly ordered sequence per tag across independent clients of many threads,
 * through many refills and ranges installed ahead, while its Redis records are deleted or rewound under it; calls
 * coalesced in arrival order; one round trip per batch; bounded waits; ranges from a database that went back are
 * refused.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisSegmentIdGeneratorTest {

    static final String PREFIX = "idworker-test";

    private final List<String> tags = new ArrayList<>();
    private final List<RedisSegmentClients> clientSets = new ArrayList<>();
    protected JdbcSegmentAllocatorStore store;
    protected UnifiedJedis admin;

    /** A new client of the Redis under test; the real-services subclass points it at Redis 7. */
    protected UnifiedJedis newClient() {
        return EmbeddedRedisSupport.newClient();
    }

    /** The table ranges come from. */
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-redis;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @BeforeEach
    void open() {
        store = createStore();
        admin = newClient();
    }

    @AfterEach
    void cleanUp() {
        clientSets.forEach(RedisSegmentClients::close);
        for (String tag : tags) {
            admin.del(key(tag, "range"), key(tag, "lock"));
            store.deleteTag(tag);
        }
        admin.close();
        store.close();
    }

    private String newTag(long startAfter) {
        String tag = "r-" + UUID.randomUUID().toString().substring(0, 13);
        tags.add(tag);
        if (startAfter >= 0) {
            store.newAllocator(false).register(tag, startAfter, 100);
        }
        return tag;
    }

    static String key(String tag, String part) {
        return RedisSegmentIdGenerator.keyOf(PREFIX, tag, part);
    }

    private static RedisSegmentOptions.Builder options() {
        return RedisSegmentOptions.builder().keyPrefix(PREFIX);
    }

    private RedisSegmentIdGenerator generator(String tag, RedisScriptExecutor executor, RedisSegmentOptions options) {
        return new RedisSegmentIdGenerator(executor, store.newAllocator(false), tag, options);
    }

    private RedisSegmentClients clients(int count, String tag, RedisSegmentOptions options) {
        RedisSegmentClients set = new RedisSegmentClients(count, this::newClient, () -> store.newAllocator(false),
                tag, options);
        clientSets.add(set);
        return set;
    }

    @Test
    void fourClientsOfFourThreadsGetUniqueNumbersFirstComeFirstServedThroughManyRefillsAndDataLosses() throws Exception {
        String tag = newTag(5_000);
        RedisSegmentClients clients = clients(4, tag, options().step(50).maxWait(Duration.ofSeconds(20)).build());
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger losses = new AtomicInteger();
        Thread chaos = new Thread(() -> {
            // Redis loses the tag's records now and then while the clients run
            while (running.get() && losses.get() < 8) {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    return;
                }
                admin.del(key(tag, "range"), key(tag, "lock"));
                losses.incrementAndGet();
            }
        }, "redis-data-loss");
        chaos.start();
        try {
            clients.run(4, 700, false);
        } finally {
            running.set(false);
            chaos.join();
        }
        SequenceCalls.assertUnique(clients.calls);
        SequenceCalls.assertFirstComeFirstServed(clients.calls);
        long highest = SequenceCalls.highest(clients.calls);
        assertThat(clients.calls).hasSize(16 * 700);
        assertThat(clients.coalescedCalls()).as("calls served together with another").isPositive();
        assertThat(clients.calls).allSatisfy(c -> assertThat(c.first()).isGreaterThan(5_000));
        assertThat(store.storedMaxId(tag)).isGreaterThanOrEqualTo(highest);
        assertThat(clients.installedRanges()).isGreaterThan(100);
        System.out.printf("redis segment: %d calls, %d numbers, %d script calls, %d calls coalesced, %d ranges "
                        + "installed (%d ahead), %d discarded, %d script calls found the range missing or exhausted, "
                        + "%d data losses%n", clients.calls.size(), SequenceCalls.numbers(clients.calls),
                clients.scriptCalls(), clients.coalescedCalls(), clients.installedRanges(), clients.installedAhead(),
                clients.discardedRanges(), clients.waitedCalls(), losses.get());
    }

    @Test
    void aBatchIsOneRoundTripOnceARangeIsInstalled() {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            JedisScriptExecutor real = new JedisScriptExecutor(jedis);
            AtomicInteger roundTrips = new AtomicInteger();
            RedisScriptExecutor counting = (script, keys, args) -> {
                roundTrips.incrementAndGet();
                return real.execute(script, keys, args);
            };
            RedisSegmentIdGenerator g = generator(tag, counting, options().step(1_000).build());
            assertThat(g.nextId()).isEqualTo(1);
            roundTrips.set(0);
            long[] batch = g.nextIds(100);
            assertThat(roundTrips.get()).isEqualTo(1);
            assertThat(batch[0]).isEqualTo(2);
            assertThat(batch[99]).isEqualTo(101);
            assertThat(g.nextId()).isEqualTo(102);
            assertThat(roundTrips.get()).isEqualTo(2);
            assertThat(admin.hget(key(tag, "range"), "v_l")).isEqualTo("102");
            assertThat(admin.hget(key(tag, "range"), "v_h")).isEqualTo("1000");

            // a batch larger than what is left, and larger than the step, gets a range of its own size
            long[] big = g.nextIds(1_500);
            assertThat(big[0]).isEqualTo(1_001);
            assertThat(big[1_499]).isEqualTo(2_500);
            assertThatThrownBy(() -> g.nextIds(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> g.nextIds(RedisSegmentOptions.DEFAULT_MAX_BATCH + 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("idworker.segment.redis.max-batch");
        } finally {
            jedis.close();
        }
    }

    @Test
    void aCallerWaitsAtMostMaxWaitWhileAnotherNodeHoldsTheRefillLock() {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            // max-wait 2 s, not 300 ms: the same generator's refill once the lock is gone must fit in it too, and on
            // a 2-core machine under a full build a refill from MariaDB took longer than 300 ms
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().maxWait(Duration.ofSeconds(2)).build());
            admin.set(key(tag, "lock"), "another-node", SetParams.setParams().px(60_000));
            long start = System.nanoTime();
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(SegmentRefillTimeoutException.class,
                            e -> assertThat(e.getBizTag()).isEqualTo(tag))
                    .hasMessageContaining("idworker.segment.redis.max-wait");
            // at max-wait, far below the other node's 60 s lock, which a caller ignoring max-wait would wait out
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(1_950L, 5_000L);
            assertThat(admin.get(key(tag, "lock"))).as("another node's lock is left alone").isEqualTo("another-node");
            assertThat(store.storedMaxId(tag)).as("nothing allocated while locked out").isZero();

            admin.del(key(tag, "lock"));
            assertThat(g.nextId()).isEqualTo(1);
            assertThat(admin.exists(key(tag, "lock"))).as("lock released after the refill").isFalse();
        } finally {
            jedis.close();
        }
    }

    @Test
    void anUnknownTagFailsNamingItAndReleasesTheLock() {
        String tag = newTag(-1);
        UnifiedJedis jedis = newClient();
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis), options().build());
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(UnknownSegmentTagException.class, e -> assertThat(e.getBizTag()).isEqualTo(tag))
                    .hasMessageContaining("'" + tag + "'");
            assertThat(admin.exists(key(tag, "lock"))).isFalse();
            assertThat(admin.exists(key(tag, "range"))).isFalse();

            RedisSegmentIdGenerator autoCreating = new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis),
                    store.newAllocator(true), tag, options().build());
            assertThat(autoCreating.nextIds(3)).containsExactly(1, 2, 3);
        } finally {
            jedis.close();
        }
    }

    @Test
    void aRangeFromADatabaseThatWentBackIsRefusedAndNoNumberIsReissued() {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            // no range ahead: this is the synchronous refill's check (the refill ahead has a test of its own)
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().step(10).prefetchThreshold(1).build());
            long[] first = g.nextIds(10);
            assertThat(first[9]).isEqualTo(10);
            store.restoreRow(tag, 0); // the database restored from a backup older than the range in Redis
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(StaleSegmentException.class, e -> {
                        assertThat(e.getBizTag()).isEqualTo(tag);
                        assertThat(e.getIssuedHigh()).isEqualTo(10);
                    })
                    .hasMessageContaining("raise max_id");
            assertThat(admin.hget(key(tag, "range"), "v_h")).isEqualTo("10");
            assertThat(admin.exists(key(tag, "lock"))).isFalse();

            store.editMaxId(tag, 10);
            assertThat(g.nextId()).isEqualTo(11);
        } finally {
            jedis.close();
        }
    }

    @Test
    void aRangeInstalledByAnotherRedisProcessIsNeverUsedAgain() {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis), options().step(100).build());
            assertThat(g.nextId()).isEqualTo(1);
            // what a restored snapshot looks like to the script: the range, rewound, from another process
            admin.hset(key(tag, "range"), "run_id", "0000000000000000000000000000000000000000");
            admin.hset(key(tag, "range"), "v_l", "0");
            assertThat(g.nextId()).isEqualTo(101);

            // with the check switched off a foreign run_id goes unnoticed (safe only without persistence)
            admin.hset(key(tag, "range"), "run_id", "0000000000000000000000000000000000000000");
            RedisSegmentIdGenerator unchecked = generator(tag, new JedisScriptExecutor(jedis),
                    options().step(100).checkRunId(false).build());
            assertThat(unchecked.nextId()).isEqualTo(102);
            assertThat(g.nextId()).isEqualTo(201);
        } finally {
            jedis.close();
        }
    }

    @Test
    void callsQueuedBehindACallInFlightShareOneScriptCallAndGetNumbersInArrivalOrder() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            HoldingExecutor holding = new HoldingExecutor(new JedisScriptExecutor(jedis));
            // one call in flight at a time, so that B and C queue behind A
            RedisSegmentIdGenerator g = generator(tag, holding, options().step(1_000).maxInFlight(1).build());
            assertThat(g.nextId()).isEqualTo(1); // installs the range
            holding.holdNextCall();
            Future<Long> a = pool.submit(g::nextId);
            holding.awaitHeld();
            Future<Long> b = pool.submit(g::nextId);
            awaitQueued(g, 1);
            Future<long[]> c = pool.submit(() -> g.nextIds(3));
            awaitQueued(g, 2);
            long scriptCalls = g.scriptCalls(); // A's included: it is in flight
            long coalesced = g.coalescedCalls();

            holding.release();
            long first = a.get(10, TimeUnit.SECONDS);
            long second = b.get(10, TimeUnit.SECONDS);
            long[] third = c.get(10, TimeUnit.SECONDS);
            assertThat(g.scriptCalls() - scriptCalls).as("one script call served B and C").isEqualTo(1);
            assertThat(g.coalescedCalls() - coalesced).as("B and C served together").isEqualTo(2);
            assertThat(first).isEqualTo(2);
            assertThat(second).as("B arrived before C").isEqualTo(first + 1);
            assertThat(third).containsExactly(second + 1, second + 2, second + 3);
            assertThat(g.nextId()).isEqualTo(third[2] + 1);
        } finally {
            pool.shutdownNow();
            jedis.close();
        }
    }

    @Test
    void withTwoCallsInFlightASecondCallerDoesNotQueueButAThirdIsCombinedIntoTheNextCall() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            HoldingExecutor holding = new HoldingExecutor(new JedisScriptExecutor(jedis));
            RedisSegmentIdGenerator g = generator(tag, holding, options().step(1_000).build()); // default: 2
            assertThat(g.options().maxInFlight()).isEqualTo(2);
            assertThat(g.nextId()).isEqualTo(1);
            holding.holdNextCall();
            Future<Long> a = pool.submit(g::nextId);
            holding.awaitHeld();
            // A holds one slot (its script call waits before it reaches Redis); B takes the other and returns while
            // A still waits: it did not queue behind A
            assertThat(pool.submit(g::nextId).get(10, TimeUnit.SECONDS)).isEqualTo(2);
            assertThat(g.queuedCalls()).isZero();
            // C begins after B returned: a later Redis call, a larger number (first come, first served)
            assertThat(pool.submit(g::nextId).get(10, TimeUnit.SECONDS)).isEqualTo(3);
            holding.release();
            // A and B were concurrent (A had not returned when B began): no order is owed between them
            assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(4);
        } finally {
            pool.shutdownNow();
            jedis.close();
        }
    }

    @Test
    void aCallHeldInRedisPastMaxWaitGivesUpAndAQueuedInterruptedCallGivesUpWithoutTakingANumber() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            HoldingExecutor holding = new HoldingExecutor(new JedisScriptExecutor(jedis));
            RedisSegmentIdGenerator g = generator(tag, holding, options().maxWait(Duration.ofMillis(1_000))
                    .maxInFlight(1).build());
            assertThat(g.nextId()).isEqualTo(1);
            holding.holdNextCall();
            long start = System.nanoTime();
            Future<Long> a = pool.submit(g::nextId);
            holding.awaitHeld();

            // queued behind the held call, interrupted: gives up at once, keeps the flag, takes nothing
            AtomicBoolean flagKept = new AtomicBoolean();
            Future<Long> interrupted = pool.submit(() -> {
                Thread.currentThread().interrupt();
                try {
                    return g.nextId();
                } finally {
                    flagKept.set(Thread.currentThread().isInterrupted());
                }
            });
            assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IdWorkerException.class)
                    .hasMessageContaining("Interrupted");
            assertThat(flagKept).isTrue();

            // the held call's caller stops waiting at its max-wait, however long Redis holds the call
            assertThatThrownBy(() -> a.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SegmentRefillTimeoutException.class)
                    .hasMessageContaining("idworker.segment.redis.max-wait");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(950L, 5_000L);

            // released, and waited for: the held call runs late in Redis and takes 2, which nobody gets (a gap,
            // never handed out). Without the wait a loaded machine let the next call reach Redis first
            holding.releaseAndAwaitTheHeldCall();
            long next = g.nextId();
            assertThat(next).as("the interrupted call took no number; the abandoned one left a gap").isEqualTo(3);
            assertThat(g.nextId()).isEqualTo(next + 1);
        } finally {
            pool.shutdownNow();
            jedis.close();
        }
    }

    @Test
    void aCallQueuedBehindACallWaitingForALockedRefillWaitsAtMostMaxWaitInAll() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().maxWait(Duration.ofMillis(2_000)).maxInFlight(1).build());
            // no range and another node's refill lock: the call in flight waits for a refill until its max-wait
            admin.set(key(tag, "lock"), "another-node", SetParams.setParams().px(60_000));
            Future<Long> first = pool.submit(g::nextId);
            Thread.sleep(500);
            long start = System.nanoTime();
            Future<Long> queued = pool.submit(g::nextId);
            assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SegmentRefillTimeoutException.class);
            // taken by the next Redis call once the first gave up (about 1 500 ms after it queued), it must not
            // wait a whole max-wait of that call's own on top (3 500 ms in all): its own deadline bounds the refill
            // wait (2 000 ms). Max-wait 2 s rather than 1 s leaves 900 ms of slack for a 2-core machine under a
            // full build, still 600 ms below that defect
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(1_900L, 2_900L);
            assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SegmentRefillTimeoutException.class);
            assertThat(store.storedMaxId(tag)).as("nothing allocated while locked out").isZero();
        } finally {
            pool.shutdownNow();
            jedis.close();
        }
    }

    @Test
    void aBatchTooLargeForTheRangeAheadSkipsItAndLaterCallsStayAbove() {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().step(100).prefetchThreshold(0.5).build());
            long highest = issueUntilARangeIsAhead(g, tag);
            long aheadHigh = Long.parseLong(admin.hget(key(tag, "range"), "n_h"));
            long[] big = g.nextIds(250);
            assertThat(big[0]).as("a range of its own, above the one ahead").isGreaterThan(aheadHigh);
            String aheadNow = admin.hget(key(tag, "range"), "n_l");
            assertThat(aheadNow == null ? big[249] : Long.parseLong(aheadNow))
                    .as("the old range ahead is a gap now; any new one lies above the batch")
                    .isGreaterThanOrEqualTo(big[249]);
            highest = big[249];
            for (int i = 0; i < 300; i++) {
                long next = g.nextId();
                assertThat(next).isGreaterThan(highest);
                highest = next;
            }
            assertThat(g.installedAhead()).isPositive();
        } finally {
            jedis.close();
        }
    }

    @Test
    void aRangeAheadInAHashOfAnotherRedisIdentityIsNeverUsed() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().step(100).prefetchThreshold(0.5).build());
            issueUntilARangeIsAhead(g, tag);
            Map<String, String> snapshot = admin.hgetAll(key(tag, "range"));
            long aheadHigh = Long.parseLong(snapshot.get("n_h"));
            long highest = 0;
            for (int i = 0; highest <= aheadHigh; i++) { // the range ahead is in use and past: its numbers are issued
                assertThat(i).as("past the range ahead within 1 000 calls").isLessThan(1_000);
                long[] batch = g.nextIds(10);
                assertThat(batch[0]).isGreaterThan(highest);
                highest = batch[9];
            }
            awaitNoRefillAhead(g);
            // what a restart from an older snapshot shows the script: the current range used up, the range ahead
            // still unused, and the identity of the Redis process that wrote them
            Map<String, String> restored = new HashMap<>(snapshot);
            restored.put("v_l", snapshot.get("v_h"));
            restored.put("run_id", "0000000000000000000000000000000000000000");
            admin.del(key(tag, "range"));
            admin.hset(key(tag, "range"), restored);

            assertThat(g.nextId()).isGreaterThan(highest);
            assertThat(admin.hget(key(tag, "range"), "run_id")).isNotEqualTo(restored.get("run_id"));
        } finally {
            jedis.close();
        }
    }

    @Test
    void aRangeAheadFromADatabaseThatWentBackIsRefusedAndNoNumberIsReissued() throws Exception {
        String tag = newTag(0);
        UnifiedJedis jedis = newClient();
        try {
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().step(10).prefetchThreshold(0.5).build());
            assertThat(g.nextIds(4)).containsExactly(1, 2, 3, 4); // 6 left: not low yet
            store.restoreRow(tag, 0); // the database restored from a backup older than the range in Redis
            assertThat(g.nextIds(2)).containsExactly(5, 6); // 4 left: the refill ahead starts and gets 1..10
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (g.status().refills() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            awaitNoRefillAhead(g);
            assertThat(g.status().refills()).as("the refill ahead ran").isEqualTo(2);
            assertThat(admin.hexists(key(tag, "range"), "n_l")).as("no range ahead below v_h").isFalse();
            assertThat(g.discardedRanges()).isEqualTo(1);
            Set<Long> seen = new HashSet<>(List.of(1L, 2L, 3L, 4L, 5L, 6L));
            long previous = 6;
            for (int i = 0; i < 40; i++) {
                long next = g.nextId();
                assertThat(next).isGreaterThan(previous);
                assertThat(seen.add(next)).as("%s issued twice", next).isTrue();
                previous = next;
            }
        } finally {
            jedis.close();
        }
    }

    @Test
    void sixteenThreadsOnFourNodesRaceToInstallRangesAhead() throws Exception {
        String tag = newTag(0);
        RedisSegmentClients clients = clients(4, tag,
                options().step(200).prefetchThreshold(0.5).maxWait(Duration.ofSeconds(20)).build());
        clients.run(4, 500, false);
        assertUniqueAndInOrder(clients, "no fault");
        assertThat(clients.installedAhead()).as("ranges installed ahead").isGreaterThan(20);
    }

    @Test
    void sixteenThreadsOnFourNodesWhileTheHashIsEvictedUnderRangesAhead() throws Exception {
        String tag = newTag(0);
        RedisSegmentClients clients = clients(4, tag,
                options().step(200).prefetchThreshold(0.5).maxWait(Duration.ofSeconds(20)).build());
        // an eviction takes the hash (current range and range ahead) but leaves the lock of a refill under way
        int faults = runWithFaults(clients, () -> admin.del(key(tag, "range")));
        assertUniqueAndInOrder(clients, faults + " evictions");
        assertThat(clients.installedAhead()).as("ranges installed ahead").isPositive();

        RedisSegmentIdGenerator g = clients.generators.get(0);
        issueUntilARangeIsAhead(g, tag);
        long aheadHigh = Long.parseLong(admin.hget(key(tag, "range"), "n_h"));
        admin.del(key(tag, "range"));
        assertThat(g.nextId()).as("above the evicted range ahead").isGreaterThan(aheadHigh);
    }

    @Test
    void sixteenThreadsOnFourNodesWhileRedisComesBackFromOlderSnapshotsWithRangesAhead() throws Exception {
        String tag = newTag(0);
        RedisSegmentClients clients = clients(4, tag,
                options().step(200).prefetchThreshold(0.5).maxWait(Duration.ofSeconds(20)).build());
        AtomicReference<Map<String, String>> snapshot = new AtomicReference<>();
        int faults = runWithFaults(clients, () -> {
            // every other fault takes a snapshot holding a range ahead; the next one restores it, rewound and stamped
            // by another identity, as a restart from an older RDB file (or a fail-over to a lagging replica) would
            Map<String, String> taken = snapshot.getAndSet(null);
            if (taken == null) {
                Map<String, String> now = admin.hgetAll(key(tag, "range"));
                if (now.containsKey("n_l")) {
                    snapshot.set(now);
                }
                return;
            }
            Map<String, String> restored = new HashMap<>(taken);
            restored.put("run_id", "0000000000000000000000000000000000000000");
            admin.hset(key(tag, "range"), restored);
        });
        assertUniqueAndInOrder(clients, faults + " faults");
    }

    /** Runs the 16 threads of {@code clients} while {@code fault} strikes every 40 ms; returns how often it did. */
    private static int runWithFaults(RedisSegmentClients clients, Runnable fault) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger faults = new AtomicInteger();
        Thread chaos = new Thread(() -> {
            while (running.get()) {
                try {
                    Thread.sleep(40);
                } catch (InterruptedException e) {
                    return;
                }
                fault.run();
                faults.incrementAndGet();
            }
        }, "redis-faults");
        chaos.start();
        try {
            clients.run(4, 500, false);
        } finally {
            running.set(false);
            chaos.join();
        }
        return faults.get();
    }

    private static void assertUniqueAndInOrder(RedisSegmentClients clients, String what) {
        SequenceCalls.assertUnique(clients.calls);
        SequenceCalls.assertFirstComeFirstServed(clients.calls);
        assertThat(clients.calls).hasSize(16 * 500);
        assertThat(clients.coalescedCalls()).as("calls served together with another").isPositive();
        System.out.printf("redis segment, %s: %d calls, %d script calls, %d coalesced, %d ranges installed (%d ahead), "
                        + "%d discarded, %d script calls found the range missing or exhausted%n", what,
                clients.calls.size(), clients.scriptCalls(), clients.coalescedCalls(), clients.installedRanges(),
                clients.installedAhead(), clients.discardedRanges(), clients.waitedCalls());
    }

    /** Calls {@code g} until the hash holds a range ahead; returns the highest number issued. */
    private long issueUntilARangeIsAhead(RedisSegmentIdGenerator g, String tag) {
        long highest = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!admin.hexists(key(tag, "range"), "n_l")) {
            assertThat(System.nanoTime()).as("a range ahead within 20 s").isLessThan(deadline);
            highest = g.nextId();
        }
        return highest;
    }

    /** Waits until no refill ahead of {@code g} holds the lock. */
    private void awaitNoRefillAhead(RedisSegmentIdGenerator g) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (admin.exists(g.lockKey()) && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        Thread.sleep(20);
    }

    private static void awaitQueued(RedisSegmentIdGenerator g, int calls) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (g.queuedCalls() < calls) {
            assertThat(System.nanoTime()).as("%s call(s) queued within 10 s", calls).isLessThan(deadline);
            Thread.sleep(1);
        }
        assertThat(g.queuedCalls()).isEqualTo(calls);
    }

    /** The real executor, except that the next {@code segment-next} call waits, once armed, until released. */
    private static final class HoldingExecutor implements RedisScriptExecutor {
        private final RedisScriptExecutor real;
        private final AtomicBoolean armed = new AtomicBoolean();
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final CountDownLatch ran = new CountDownLatch(1);

        HoldingExecutor(RedisScriptExecutor real) {
            this.real = real;
        }

        void holdNextCall() {
            armed.set(true);
        }

        void awaitHeld() throws InterruptedException {
            assertThat(held.await(10, TimeUnit.SECONDS)).as("a segment-next call held").isTrue();
        }

        void release() {
            released.countDown();
        }

        /** Lets the held call go on, and waits until Redis has answered it. */
        void releaseAndAwaitTheHeldCall() throws InterruptedException {
            released.countDown();
            assertThat(ran.await(10, TimeUnit.SECONDS)).as("the held call ran in Redis").isTrue();
        }

        @Override
        public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
            if (script.name().equals("segment-next") && armed.compareAndSet(true, false)) {
                held.countDown();
                try {
                    released.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                try {
                    return real.execute(script, keys, args);
                } finally {
                    ran.countDown();
                }
            }
            return real.execute(script, keys, args);
        }
    }
}
