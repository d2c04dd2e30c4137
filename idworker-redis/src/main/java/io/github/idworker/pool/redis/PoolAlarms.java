package io.github.idworker.pool.redis;

import io.github.idworker.pool.PoolAlarm;
import io.github.idworker.pool.PoolAlarmListener;
import io.github.idworker.pool.PoolEntity;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Raises {@link PoolAlarm}s of the pools this node serves. Guarantees: every alarm reaches every listener (one
 * listener that throws neither stops the others nor the caller); the WARN log gets at most one line per pool and
 * kind every {@code check-interval} (at least a second), and that line counts the alarms it stood for, so a pool
 * refused a thousand times a second does not flood the log.
 */
final class PoolAlarms {

    // the log category operators know from before the split
    private static final Logger log = LoggerFactory.getLogger(RedisIdPools.class);
    private static final long MIN_LOG_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisPoolOptions options;

    PoolAlarms(RedisPoolOptions options) {
        this.options = options;
    }

    /**
     * The time of the last alarm line of a pool that has logged none: so far back that its first alarm logs
     * whatever the gap between lines (up to the longest check interval, an hour; 100 s back, as before, kept the
     * first alarm of a pool checked less often than that out of the log), and near enough that the difference to
     * now does not overflow.
     */
    static long neverLogged() {
        return System.nanoTime() - Long.MAX_VALUE / 2;
    }

    void raise(TrackedPool pool, PoolAlarm.Kind kind, long level, int requested, long rate, String reason) {
        PoolEntity e = pool.entity;
        PoolAlarm alarm = new PoolAlarm(kind, pool.key, level, e.thresholdLevel(), requested, rate, Instant.now(), reason);
        AtomicLong last = kind == PoolAlarm.Kind.EMPTY ? pool.lastEmptyLog : pool.lastLowLog;
        long now = System.nanoTime();
        long prev = last.get();
        long gap = Math.max(MIN_LOG_GAP_NANOS, e.checkInterval().toNanos());
        if (now - prev >= gap && last.compareAndSet(prev, now)) {
            int more = pool.unloggedAlarms.getAndSet(0);
            log.warn("{}{}", alarm, more > 0 ? " (" + more + " more alarms of this pool since the last line)" : "");
        } else {
            pool.unloggedAlarms.incrementAndGet();
        }
        for (PoolAlarmListener listener : options.alarmListeners()) {
            try {
                listener.onAlarm(alarm);
            } catch (RuntimeException ex) {
                log.warn("Pool alarm listener {} failed on {}: {}", listener, alarm, ex.toString());
            }
        }
    }
}
