package io.github.idworker.test.segment;

import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.SegmentRowMovedBackException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis sequences over a segment row an operator moved back (max_id lowered by hand): the refill's own check
 * (a range installs only above the current one in Redis) protects only while Redis keeps that range; once Redis
 * lost it (a restart without persistence, a new Redis), the table's high-water must refuse the row. 16 threads
 * on four clients, as four processes, and a client started afterwards: no number twice, every refusal typed,
 * nothing allocated.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSegmentRowMovedBackTest {

    private static final String PREFIX = "idworker-test";
    private static final int CLIENTS = 4;
    private static final int THREADS = 16;

    private final List<UnifiedJedis> clients = new ArrayList<>();
    private JdbcSegmentAllocatorStore store;
    private UnifiedJedis admin;
    private String tag;

    /** A new client of the Redis under test; the real-services subclass points it at Redis 7. */
    protected UnifiedJedis newClient() {
        return EmbeddedRedisSupport.newClient();
    }

    /** The table ranges come from. */
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore("jdbc:h2:mem:segment-redis-moved-back;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @BeforeEach
    void open() {
        store = createStore();
        admin = newClient();
        tag = "m-" + UUID.randomUUID().toString().substring(0, 13);
        store.newAllocator(false).register(tag, 0, 100);
    }

    @AfterEach
    void cleanUp() {
        clients.forEach(UnifiedJedis::close);
        admin.del(key("range"), key("lock"));
        store.deleteTag(tag);
        admin.close();
        store.close();
    }

    private String key(String part) {
        return RedisSegmentIdGenerator.keyOf(PREFIX, tag, part);
    }

    private RedisSegmentIdGenerator generator() {
        UnifiedJedis jedis = newClient();
        clients.add(jedis);
        return new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis), store.newAllocator(false), tag,
                RedisSegmentOptions.builder().keyPrefix(PREFIX).step(100).maxWait(Duration.ofSeconds(10)).build());
    }

    /** Four clients that issued 2 000 numbers; the row then moved back to half its high-water. */
    private List<RedisSegmentIdGenerator> clientsAfterTheRowMovedBack(Set<Long> issued) {
        List<RedisSegmentIdGenerator> generators = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            generators.add(generator());
        }
        for (int i = 0; i < 2_000; i++) {
            issued.add(generators.get(i % CLIENTS).nextId());
        }
        long highWater = store.storedMaxId(tag);
        store.editMaxId(tag, highWater / 2);
        return generators;
    }

    @Test
    void afterRedisLostTheRangeARowMovedBackIsRefusedByEveryClientAndNoNumberIsIssuedTwice() throws Exception {
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        List<RedisSegmentIdGenerator> generators = clientsAfterTheRowMovedBack(issued);
        long highWater = issued.stream().mapToLong(Long::longValue).max().orElseThrow();
        long movedTo = store.storedMaxId(tag);
        // Redis loses the range, as after a restart without persistence: only the table can tell now
        admin.del(key("range"), key("lock"));
        Outcome afterLoss = callOnThreads(generators, issued);
        // and a client started afterwards, as after a restart of the application
        Outcome fresh = callOnThreads(List.of(generator()), issued);

        System.out.printf("Redis sequence, row moved back to %d below numbers up to %d, Redis lost the range: "
                + "running clients %s; new client %s%n", movedTo, highWater, afterLoss, fresh);
        assertThat(afterLoss.repeats).as("numbers issued twice").isEmpty();
        assertThat(fresh.repeats).as("numbers issued twice by a new client").isEmpty();
        assertThat(afterLoss.issued.get() + fresh.issued.get()).as("numbers issued once Redis lost the range").isZero();
        assertRefusedTyped(afterLoss, movedTo);
        assertRefusedTyped(fresh, movedTo);
        assertThat(store.storedMaxId(tag)).as("nothing allocated by a refusal").isEqualTo(movedTo);

        store.editMaxId(tag, store.storedMaxId(tag) * 2 + 1_000); // the operator's recovery, above the high-water
        long next = generators.get(0).nextId();
        assertThat(next).isGreaterThan(highWater);
        assertThat(issued.add(next)).isTrue();
    }

    @Test
    void whileRedisKeepsTheRangeItsNumbersServeAndTheNextRefillIsRefused() throws Exception {
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        List<RedisSegmentIdGenerator> generators = clientsAfterTheRowMovedBack(issued);
        long movedTo = store.storedMaxId(tag);
        Outcome running = callOnThreads(generators, issued);
        System.out.printf("Redis sequence, row moved back to %d, Redis kept the range: %s%n", movedTo, running);
        assertThat(running.repeats).as("numbers issued twice").isEmpty();
        assertRefusedTyped(running, movedTo);
        assertThat(store.storedMaxId(tag)).as("nothing allocated by a refusal").isEqualTo(movedTo);
    }

    private void assertRefusedTyped(Outcome outcome, long movedTo) {
        assertThat(outcome.failures).isNotEmpty().allSatisfy(e -> assertThat(e)
                .isInstanceOfSatisfying(SegmentRowMovedBackException.class, m -> {
                    assertThat(m.getBizTag()).isEqualTo(tag);
                    assertThat(m.getTable()).isEqualTo(store.table());
                    assertThat(m.getMaxId()).isEqualTo(movedTo);
                    // at least where it stood when it was halved: a refill ahead may have landed meanwhile
                    assertThat(m.getHighWater()).isGreaterThanOrEqualTo(2 * movedTo);
                }));
    }

    /** What 16 threads got from the generators, 200 calls each. */
    private record Outcome(AtomicInteger issued, ConcurrentLinkedQueue<Long> repeats,
                           ConcurrentLinkedQueue<IdWorkerException> failures) {
        @Override
        public String toString() {
            return issued + " numbers issued, " + repeats.size() + " repeated, " + failures.size() + " refusals";
        }
    }

    private Outcome callOnThreads(List<RedisSegmentIdGenerator> generators, Set<Long> issued) throws Exception {
        Outcome outcome = new Outcome(new AtomicInteger(), new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                RedisSegmentIdGenerator g = generators.get(t % generators.size());
                boolean batches = t % 4 == 3;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < 200; i++) {
                        try {
                            long[] ids = batches ? g.nextIds(7) : new long[] {g.nextId()};
                            for (long id : ids) {
                                outcome.issued.incrementAndGet();
                                if (!issued.add(id)) {
                                    outcome.repeats.add(id);
                                }
                            }
                        } catch (IdWorkerException e) {
                            outcome.failures.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return outcome;
    }
}
