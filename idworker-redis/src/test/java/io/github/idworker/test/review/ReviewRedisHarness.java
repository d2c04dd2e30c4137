package io.github.idworker.test.review;

import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.test.segment.JdbcSegmentAllocatorStore;
import io.github.idworker.test.segment.SequenceCalls;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * Review harness: independent "nodes" (own Jedis client, own allocator, own generator) of one tag's Redis
 * sequence, each called from several threads; records every successful call and counts every typed failure by
 * class; any other exception fails the run.
 */
final class ReviewRedisHarness implements AutoCloseable {

    final List<RedisSegmentIdGenerator> generators = new ArrayList<>();
    final ConcurrentLinkedQueue<SequenceCalls.Call> calls = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    /** Longest a failed call took, in ms. */
    final AtomicLong longestFailureMs = new AtomicLong();
    /** Longest a successful call took, in ms. */
    final AtomicLong longestCallMs = new AtomicLong();
    private final List<UnifiedJedis> clients = new ArrayList<>();

    ReviewRedisHarness(int nodes, Supplier<UnifiedJedis> newClient, JdbcSegmentAllocatorStore store, String tag,
                       RedisSegmentOptions options) {
        for (int i = 0; i < nodes; i++) {
            UnifiedJedis jedis = newClient.get();
            clients.add(jedis);
            generators.add(new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis), store.newAllocator(false), tag,
                    options));
        }
    }

    /**
     * {@code threadsEach} threads per node each make {@code callsEach} attempts; {@code counts} picks the count of
     * each call from a random int in [0, 100) (1 means {@code nextId()}).
     */
    void run(int threadsEach, int callsEach, IntUnaryOperator counts) throws Exception {
        int n = generators.size() * threadsEach;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < n; t++) {
                int node = t % generators.size();
                RedisSegmentIdGenerator g = generators.get(node);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int done = 0; done < callsEach; done++) {
                        int count = counts.applyAsInt(random.nextInt(100));
                        long begin = System.nanoTime();
                        long first;
                        try {
                            first = count == 1 ? g.nextId() : g.nextIds(count)[0];
                        } catch (IdWorkerException e) {
                            failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                            longestFailureMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin), Math::max);
                            Thread.sleep(1);
                            continue;
                        }
                        long end = System.nanoTime();
                        longestCallMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(end - begin), Math::max);
                        calls.add(new SequenceCalls.Call(node, begin, end, first, first + count - 1));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    long sum(java.util.function.ToLongFunction<RedisSegmentIdGenerator> f) {
        return generators.stream().mapToLong(f).sum();
    }

    String stats() {
        return String.format("%d calls, %d numbers, highest %d, %d script calls, %d coalesced, %d waited, "
                        + "%d installed (%d ahead), %d discarded, failures %s, longest call %d ms, longest failure %d ms",
                calls.size(), SequenceCalls.numbers(calls), SequenceCalls.highest(calls),
                sum(RedisSegmentIdGenerator::scriptCalls), sum(RedisSegmentIdGenerator::coalescedCalls),
                sum(RedisSegmentIdGenerator::waitedCalls), sum(RedisSegmentIdGenerator::installedRanges),
                sum(RedisSegmentIdGenerator::installedAhead), sum(RedisSegmentIdGenerator::discardedRanges),
                failures, longestCallMs.get(), longestFailureMs.get());
    }

    @Override
    public void close() {
        clients.forEach(UnifiedJedis::close);
    }
}
