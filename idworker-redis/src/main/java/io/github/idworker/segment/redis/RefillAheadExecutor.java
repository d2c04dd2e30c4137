package io.github.idworker.segment.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that install Redis ranges ahead of need, shared by every {@link RedisSegmentIdGenerator} of the JVM.
 * Each generator runs at most one such refill at a time, so the queue never holds more tasks than there are tags.
 * Daemon threads, which end after a minute without work: a generator has no close, and a refill left unfinished
 * at exit leaves only a gap (or a lock that expires).
 */
final class RefillAheadExecutor {

    private static final int THREADS = 4;

    /** The shared executor. */
    static final Executor SHARED = create();

    private RefillAheadExecutor() {
    }

    private static Executor create() {
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), task -> {
                    Thread t = new Thread(task, "idworker-redis-refill-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
