package io.github.idworker.serial.redis;

import io.github.idworker.StoreLocations;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Refills the Redis stocks of {@link RedisSerialNumbers} from the database. Guarantees: at most one refill per
 * stock runs in this process, and across nodes only the holder of the stock's lock installs; a number enters Redis
 * only after {@link SerialStore#reserve} raised the database's high-water past it; a failed refill is not tried
 * again for 200 ms, so a dead database is not hammered.
 *
 * <p>Steps of one refill, on the refill executor:
 * <ol>
 *   <li>Take the stock's lock ({@code SET NX PX} with a random token and {@code lock-ttl}); when another node holds
 *       it, stop: that node refills.</li>
 *   <li>{@code serial-inspect.lua} reads what is left (-1 for no stock, or one another Redis process installed) and
 *       the demand of the last 30 and 60 minutes; when enough is left (another node refilled) stop.</li>
 *   <li>Size the refill as the faster of the two paces over {@code refill-cover}, clamped to
 *       {@code [min-batch, max-batch]} and at least the waiting call's {@code n}
 *       ({@link #batchSize(SerialRule, long, long, long)}).</li>
 *   <li>Reserve it in the database ({@link SerialStore#reserve}, which raises the durable high-water first).</li>
 *   <li>Install it with {@code serial-install.lua}, which accepts it only while the token still holds the lock and
 *       only above the stock: extending the stock when it continues it, replacing it otherwise.</li>
 *   <li>Release the lock by compare-and-delete; a lock that cannot be released expires by itself.</li>
 * </ol>
 * Thread-safe.
 */
final class SerialStockRefiller {

    /** The logger of {@link RedisSerialNumbers}, so that log settings made for serials keep covering refills. */
    private static final Logger log = LoggerFactory.getLogger(RedisSerialNumbers.class);
    private static final LuaScript INSPECT = LuaScript.load(SerialStockRefiller.class, "serial-inspect");
    private static final LuaScript LOCK = RefillLock.ACQUIRE;
    private static final LuaScript UNLOCK = RefillLock.RELEASE;
    private static final LuaScript INSTALL = LuaScript.load(SerialStockRefiller.class, "serial-install");
    /** A failed background refill is not tried again for this long, so a dead database is not hammered. */
    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final RedisScriptExecutor executor;
    private final SerialStore store;
    private final RedisSerialOptions options;
    private final String checkRun;
    private final Executor refillExecutor;
    private final @Nullable ExecutorService ownExecutor;
    private final Map<String, RefillState> refillStates = new ConcurrentHashMap<>();
    private final LongAdder refills = new LongAdder();
    private volatile long lastRefillSize;
    private volatile boolean closed;

    /** Per stock: whether a background refill is queued or running here, and when the last one failed. */
    static final class RefillState {
        final AtomicBoolean running = new AtomicBoolean();
        /**
         * The largest count asked for since the running refill last looked, 0 when none: a request made while a
         * refill runs is run after it rather than dropped (a take that emptied the stock as the refill that filled
         * it was ending would otherwise leave it empty until the next caller waited for one).
         */
        final AtomicInteger wanted = new AtomicInteger();
        volatile long failedAtNanos;
        volatile @Nullable RuntimeException lastFailure;
        /** The rule's max when the database said the period was exhausted; a raised max makes it stale. */
        volatile long exhaustedMax = -1;
    }

    /** Runs refills on {@code options.refillExecutor()}, or on two daemon threads of its own when that is null. */
    SerialStockRefiller(RedisScriptExecutor executor, SerialStore store, RedisSerialOptions options) {
        this.executor = executor;
        this.store = store;
        this.options = options;
        this.checkRun = options.checkRunId() ? "1" : "0";
        Executor given = options.refillExecutor();
        if (given != null) {
            this.refillExecutor = given;
            this.ownExecutor = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                    r -> {
                        Thread t = new Thread(r, "idworker-serial-refill-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true);
            this.refillExecutor = pool;
            this.ownExecutor = pool;
        }
    }

    /** Refills this process installed. */
    long refills() {
        return refills.sum();
    }

    /** Size of the last refill this process installed, 0 before the first. */
    long lastRefillSize() {
        return lastRefillSize;
    }

    /**
     * Starts a refill of {@code stock} on the refill executor unless the last one failed less than 200 ms ago; at
     * most one runs per stock in this process, and a request made while one runs gets another one after it.
     *
     * @param count numbers the refill must add at least (a waiting batch)
     * @return the stock's refill state, with the last failure
     */
    RefillState refillInBackground(SerialStock stock, int count) {
        RefillState state = refillStates.computeIfAbsent(stock.stockKey, k -> new RefillState());
        state.wanted.accumulateAndGet(count, Math::max);
        long failedAt = state.failedAtNanos;
        if (closed || failedAt != 0 && System.nanoTime() - failedAt < RETRY_BACKOFF_NANOS) {
            return state;
        }
        if (!state.running.compareAndSet(false, true)) {
            return state; // the running refill looks at wanted again once it is done
        }
        submit(stock, state);
        if (refillStates.size() > 1024) {
            // stocks of past periods: their keys expire in Redis, their states need not stay here
            refillStates.entrySet().removeIf(e -> !e.getKey().equals(stock.stockKey) && !e.getValue().running.get());
        }
        return state;
    }

    /** Queues one refill of {@code stock}; the caller holds {@code state.running}. */
    private void submit(SerialStock stock, RefillState state) {
        try {
            refillExecutor.execute(() -> runRefill(stock, state));
        } catch (RejectedExecutionException e) {
            state.running.set(false); // closed or saturated: the next request tries again
        }
    }

    /**
     * One refill for what was asked so far. A request made meanwhile (or after the look, before {@code running}
     * went false) found it running and left it here: it gets one more refill, queued behind other stocks' refills
     * rather than run at once on this thread, unless this one failed (the back-off applies) or found another node
     * refilling (its refill serves the request).
     */
    private void runRefill(SerialStock stock, RefillState state) {
        boolean done = false;
        try {
            int count = state.wanted.getAndSet(0);
            done = count > 0 && !closed && refillOnce(stock, state, count);
        } finally {
            state.running.set(false);
        }
        if (done && !closed && state.wanted.get() > 0 && state.running.compareAndSet(false, true)) {
            submit(stock, state);
        }
    }

    /** One refill with its bookkeeping; false when it failed or another node's refill holds the lock. */
    private boolean refillOnce(SerialStock stock, RefillState state, int count) {
        try {
            boolean refilled = refill(stock, count);
            if (state.failedAtNanos != 0) {
                log.info("Serial rule '{}' period {}: refills work again", stock.rule.name(), stock.period);
            }
            state.failedAtNanos = 0;
            state.lastFailure = null;
            return refilled;
        } catch (SerialExhaustedException e) {
            state.exhaustedMax = stock.rule.max();
            state.lastFailure = e;
            return false;
        } catch (RuntimeException e) {
            if (state.failedAtNanos == 0) {
                log.warn("Refill of serial rule '{}' period {} failed; the stock keeps serving and refills "
                        + "retry every 200 ms (further failures at DEBUG): {}", stock.rule.name(), stock.period,
                        StoreLocations.redact(e.toString()));
            } else {
                log.debug("Refill of serial rule '{}' period {} failed again: {}", stock.rule.name(),
                        stock.period, StoreLocations.redact(e.toString()));
            }
            state.failedAtNanos = System.nanoTime() | 1;
            state.lastFailure = e;
            return false;
        }
    }

    /**
     * One refill attempt under the stock's lock.
     *
     * @return true when the stock may now serve {@code count} (filled here or by another node), false when the
     *         lock is held by another refill
     */
    private boolean refill(SerialStock stock, int count) {
        long started = System.nanoTime();
        List<String> lockKey = List.of(stock.lockKey);
        String token = UUID.randomUUID().toString();
        long locked = ScriptReplies.number(executor.execute(LOCK, lockKey,
                List.of(token, Long.toString(options.lockTtl().toMillis()))), 0, "serial-lock");
        if (locked != 1) {
            return false;
        }
        try {
            List<String> keys = new ArrayList<>(1 + SerialStock.BUCKETS);
            keys.add(stock.stockKey);
            long bucket = SerialStock.bucket(options.clock().millis());
            for (int i = 0; i < SerialStock.BUCKETS; i++) {
                keys.add(stock.useKey(bucket - i));
            }
            String context = "serial-inspect of rule '" + stock.rule.name() + "' period " + stock.period;
            List<Object> seen = executor.execute(INSPECT, keys, List.of(checkRun, Long.toString(stock.rule.max())));
            long left = ScriptReplies.number(seen, 0, context);
            long use30 = ScriptReplies.number(seen, 1, context);
            long use60 = ScriptReplies.number(seen, 2, context);
            SerialRule rule = stock.rule;
            if (left >= count && left > rule.critical()) {
                return true;
            }
            int batch = Math.max(count, batchSize(rule, use30, use60, options.refillCover().toMillis()));
            SerialRange range = store.reserve(rule, stock.period, batch);
            List<Object> installed = executor.execute(INSTALL, List.of(stock.stockKey, stock.lockKey),
                    List.of(token, Long.toString(range.first()), Long.toString(range.last()),
                            Long.toString(stock.ttlMillis(options.clock().millis()))));
            return installed(stock, range, left, installed, started);
        } finally {
            try {
                executor.execute(UNLOCK, lockKey, List.of(token));
            } catch (RuntimeException e) {
                log.debug("Could not release the refill lock of serial rule '{}' period {}; it expires by itself: {}",
                        stock.rule.name(), stock.period, e.toString());
            }
        }
    }

    /**
     * Reads {@code serial-install}'s answer for {@code range}; {@code left} is what the stock held before.
     *
     * @return true when the range is in the stock, false when the lock expired before the install
     */
    private boolean installed(SerialStock stock, SerialRange range, long left, List<Object> installed, long started) {
        SerialRule rule = stock.rule;
        String result = ScriptReplies.text(installed, 0, "serial-install");
        switch (result) {
            case "EXTENDED", "REPLACED" -> {
                refills.increment();
                lastRefillSize = range.size();
                stock.stats.refilled(System.nanoTime() - started, range.size());
                if (result.equals("REPLACED") && left >= 0) {
                    log.warn("Serial rule '{}' period {}: numbers {}..{} start above the stock, which had {} left; "
                            + "those are skipped (an earlier reservation was lost)", rule.name(), stock.period,
                            range.first(), range.last(), left);
                } else {
                    log.debug("Serial rule '{}' period {}: stock {} with {}..{}", rule.name(), stock.period,
                            result.toLowerCase(), range.first(), range.last());
                }
                return true;
            }
            case "NOT_OWNER" -> {
                log.warn("Serial rule '{}' period {}: the refill lock expired while reserving {}..{} (lock-ttl {}); "
                        + "those numbers are skipped", rule.name(), stock.period, range.first(), range.last(),
                        options.lockTtl());
                return false;
            }
            case "BELOW" -> throw new CenterUnavailableException("Serial rule '" + rule.name() + "' period "
                    + stock.period + ": the database reserved " + range.first() + ".." + range.last()
                    + ", not above the stock in Redis (which ends at " + ScriptReplies.text(installed, 1,
                    "serial-install") + "); did the database go back to an older state? Those numbers are not used.",
                    null);
            default -> throw new CenterUnavailableException("Unexpected Redis reply "
                    + ScriptReplies.describe(installed) + " to serial-install", null);
        }
    }

    /**
     * The size of a refill: what the faster of the last 30 and 60 minutes' paces takes in {@code coverMillis},
     * clamped to the rule's {@code [min-batch, max-batch]}.
     */
    static int batchSize(SerialRule rule, long use30, long use60, long coverMillis) {
        double perMilli = Math.max(use30 / (30.0 * 60_000), use60 / (60.0 * 60_000));
        double wanted = Math.ceil(perMilli * coverMillis);
        return (int) Math.max(rule.minBatch(), Math.min(rule.maxBatch(), wanted));
    }

    /** Starts no more refills and stops the own refill threads; a given executor is left to its owner. */
    void close() {
        closed = true;
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
    }
}
