package io.github.idworker.test.segment;

import io.github.idworker.redis.JedisScriptExecutor;
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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis segment generator: one strictly ordered sequence per tag across independent clients, through many
 * refills and while its Redis records are deleted under it; one round trip per batch; bounded waits; ranges from
 * a database that went back are refused.
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
    void fourClientsGetUniqueNumbersFirstComeFirstServedThroughManyRefillsAndDataLosses() throws Exception {
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
            clients.run(2_500, false);
        } finally {
            running.set(false);
            chaos.join();
        }
        SequenceCalls.assertUnique(clients.calls);
        SequenceCalls.assertFirstComeFirstServed(clients.calls);
        long highest = SequenceCalls.highest(clients.calls);
        assertThat(clients.calls).hasSize(4 * 2_500);
        assertThat(clients.calls).allSatisfy(c -> assertThat(c.first()).isGreaterThan(5_000));
        assertThat(store.storedMaxId(tag)).isGreaterThanOrEqualTo(highest);
        assertThat(clients.installedRanges()).isGreaterThan(100);
        System.out.printf("redis segment: %d calls, %d numbers, %d ranges installed, %d discarded, %d calls "
                        + "found the range missing or exhausted, %d data losses%n", clients.calls.size(),
                SequenceCalls.numbers(clients.calls), clients.installedRanges(), clients.discardedRanges(),
                clients.waitedCalls(), losses.get());
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
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis),
                    options().maxWait(Duration.ofMillis(300)).build());
            admin.set(key(tag, "lock"), "another-node", SetParams.setParams().px(60_000));
            long start = System.nanoTime();
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(SegmentRefillTimeoutException.class,
                            e -> assertThat(e.getBizTag()).isEqualTo(tag))
                    .hasMessageContaining("idworker.segment.redis.max-wait");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 5_000L);
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
            RedisSegmentIdGenerator g = generator(tag, new JedisScriptExecutor(jedis), options().step(10).build());
            long[] first = g.nextIds(10);
            assertThat(first[9]).isEqualTo(10);
            store.setMaxId(tag, 0); // the database restored from a backup older than the range in Redis
            assertThatThrownBy(g::nextId)
                    .isInstanceOfSatisfying(StaleSegmentException.class, e -> {
                        assertThat(e.getBizTag()).isEqualTo(tag);
                        assertThat(e.getIssuedHigh()).isEqualTo(10);
                    })
                    .hasMessageContaining("raise max_id");
            assertThat(admin.hget(key(tag, "range"), "v_h")).isEqualTo("10");
            assertThat(admin.exists(key(tag, "lock"))).isFalse();

            store.setMaxId(tag, 10);
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
}
