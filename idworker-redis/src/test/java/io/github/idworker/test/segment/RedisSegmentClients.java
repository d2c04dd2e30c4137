package io.github.idworker.test.segment;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import redis.clients.jedis.UnifiedJedis;

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
import java.util.function.Supplier;

/**
 * Independent clients of one tag's Redis sequence, as separate processes would be: each has its own Redis
 * connection pool, its own executor, its own allocator and its own generator, called from one or more threads of
 * its own (several threads of one client are what coalescing combines).
 */
final class RedisSegmentClients {

    final List<RedisSegmentIdGenerator> generators = new ArrayList<>();
    final ConcurrentLinkedQueue<SequenceCalls.Call> calls = new ConcurrentLinkedQueue<>();
    /** Calls that failed because Redis was unreachable (only while a test restarts it). */
    final AtomicLong outages = new AtomicLong();
    private final List<UnifiedJedis> clients = new ArrayList<>();

    RedisSegmentClients(int count, Supplier<UnifiedJedis> newClient, Supplier<SegmentAllocator> newAllocator,
                        String tag, RedisSegmentOptions options) {
        for (int i = 0; i < count; i++) {
            UnifiedJedis jedis = newClient.get();
            clients.add(jedis);
            generators.add(new RedisSegmentIdGenerator(new JedisScriptExecutor(jedis), newAllocator.get(), tag, options));
        }
    }

    /**
     * Every client makes {@code callsEach} successful calls, released together: mostly {@code nextId()}, some
     * small batches and a few batches larger than the step. With {@code tolerateOutages}, a call that finds
     * Redis unreachable is retried after a few milliseconds and not recorded.
     */
    void run(int callsEach, boolean tolerateOutages) throws Exception {
        run(1, callsEach, tolerateOutages);
    }

    /** As {@link #run(int, boolean)}, with {@code threadsEach} threads per client, each making {@code callsEach}. */
    void run(int threadsEach, int callsEach, boolean tolerateOutages) throws Exception {
        int n = generators.size() * threadsEach;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < n; t++) {
                int client = t % generators.size();
                RedisSegmentIdGenerator g = generators.get(client);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    int done = 0;
                    while (done < callsEach) {
                        int kind = random.nextInt(100);
                        int count = kind < 60 ? 1 : kind < 95 ? 1 + random.nextInt(20) : 60 + random.nextInt(61);
                        long begin = System.nanoTime();
                        long first;
                        try {
                            first = count == 1 ? g.nextId() : g.nextIds(count)[0];
                        } catch (CenterUnavailableException e) {
                            if (!tolerateOutages) {
                                throw e;
                            }
                            outages.incrementAndGet();
                            Thread.sleep(5);
                            continue;
                        }
                        long end = System.nanoTime();
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
        }
    }

    long installedRanges() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::installedRanges).sum();
    }

    long waitedCalls() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::waitedCalls).sum();
    }

    long coalescedCalls() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::coalescedCalls).sum();
    }

    long scriptCalls() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::scriptCalls).sum();
    }

    long installedAhead() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::installedAhead).sum();
    }

    long discardedRanges() {
        return generators.stream().mapToLong(RedisSegmentIdGenerator::discardedRanges).sum();
    }

    void close() {
        clients.forEach(UnifiedJedis::close);
    }
}
