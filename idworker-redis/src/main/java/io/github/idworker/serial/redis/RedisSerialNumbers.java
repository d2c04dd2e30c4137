package io.github.idworker.serial.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRuleStats;
import io.github.idworker.serial.SerialRuleStatus;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStockEmptyException;
import io.github.idworker.serial.SerialStore;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Strict serial numbers: one stock per (rule, period) in Redis, shared by every node and handed out first come,
 * first served. Guarantees: no string is handed out twice, also after Redis loses its data or comes back from an
 * older snapshot (numbering continues above the database's high-water: gaps, never reuse); when one call returns
 * before another begins, all of the first call's numbers are smaller; within a period the numbers are contiguous
 * while nothing fails; nothing past the rule's {@code max}; the printed date is the hand-out date in the rule's
 * zone. Not guaranteed: order across a period boundary when nodes' clocks disagree about midnight (each node
 * uses its own clock's period, and each period has its own stock, so strings stay unique).
 *
 * <p>Keys of rule {@code order}, period {@code 20261123}, prefix {@code idworker}, all under one hash tag so
 * every script runs on Redis Cluster:
 * <ul>
 *   <li>{@code {idworker:serial:order}:20261123} — hash {@code lo} (last number issued), {@code hi} (last number
 *       of the stock), {@code run_id} (the identity of the Redis that installed it: its replication id),
 *       {@code installed_ms}; it expires two days after its period ends by the installing node's clock, counted as
 *       a relative expiry so that Redis's own clock need not agree with it (an early expiry only makes a gap: the
 *       next refill reserves above the database's high-water);</li>
 *   <li>{@code {idworker:serial:order}:20261123:lock} — the refill lock, holding its owner's random token;</li>
 *   <li>{@code {idworker:serial:order}:use:<n>} — numbers taken in the {@code n}-th 5-minute bucket since the
 *       epoch, expiring after 65 minutes: demand counters nobody resets.</li>
 * </ul>
 *
 * <p>Steps of {@code next(rule, n)}:
 * <ol>
 *   <li>Read the clock once; the rule's zone gives the date, which names both the period's stock and the printed
 *       date, so a stock never prints another day's date. A reading inside the window of the stock used last (its
 *       day at one zone offset) takes that stock without working the date out again.</li>
 *   <li>One {@code serial-take.lua} call (one round trip): when the stock holds {@code n} more numbers below the
 *       rule's max it advances {@code lo} by {@code n}, adds {@code n} to the demand bucket and returns the last
 *       number issued and how many are left, as two integers (in Redis: {@code HMGET}, {@code INFO replication},
 *       {@code HINCRBY}, {@code INCRBY}; the keys and, for {@code n = 1}, the arguments are built once per stock).
 *       Otherwise it answers {@code MISSING} (no stock, or one installed by another
 *       Redis process, whose {@code lo} may have gone back), {@code SHORT} or {@code MAX}; none of these ever
 *       reaches a caller as a number. {@code MAX} → {@link SerialExhaustedException}.</li>
 *   <li>When the numbers left are at or below the rule's {@code critical}, a background refill starts (at most
 *       one per stock in this process), so a steady caller never waits.</li>
 *   <li>A call the stock cannot serve starts a refill on the refill executor (unless one runs here already) and
 *       polls step 2 (1 ms backing off to 10 ms), at most {@code max-wait} in all, then gets
 *       {@link SerialStockEmptyException}: a hung database never holds a caller longer. A refill that failed is
 *       not tried again for 200 ms. A refill the database refused because the period's high-water was moved back
 *       by hand fails the waiting call at once with that {@link SerialPeriodMovedBackException}.</li>
 *   <li>{@code max-wait} bounds the whole call, counted from its start: each take of step 2 waits for Redis only
 *       until then ({@link RedisScriptExecutor#execute(LuaScript, List, List, long, java.util.function.Supplier)}),
 *       so a hung Redis ends the call with {@link SerialStockEmptyException}
 *       within {@code max-wait} too, whatever the Redis client's socket timeout and retries. A take Redis runs
 *       after its caller gave up leaves its numbers unused: a gap, never a duplicate.</li>
 *   <li>Refill: take the lock ({@code SET NX PX}); when another node holds it, stop (that node refills). Holding
 *       the lock:
 *       {@code serial-inspect.lua} reads what is left and the demand of the last 30 and 60 minutes; when
 *       enough is left (another node refilled) stop. Otherwise size the refill as the faster of the two paces
 *       over {@code refill-cover}, clamped to {@code [min-batch, max-batch]} and at least the waiting call's
 *       {@code n}; reserve it in the database ({@link SerialStore#reserve}, which raises the durable high-water
 *       first); install it with {@code serial-install.lua}, which accepts it only while the token still holds the
 *       lock and only above the stock — extending the stock when it continues it, replacing it otherwise. Release
 *       the lock by compare-and-delete ({@link SerialStockRefiller}).</li>
 * </ol>
 *
 * <p>Why no number is issued twice: a number enters Redis only after the database's high-water passed it, and
 * only through an install made under a lock kept beside the stock. A Redis that lost its data lost the lock too,
 * so later installs hold ranges reserved after the loss, above everything issued. A Redis restored from an older
 * snapshot, a fail-over to a lagging replica or a fail-back to a demoted master brings back an old {@code lo},
 * but also an old identity (its replication id, checked in every take): with {@code check-run-id} on (the
 * default) the stock is refused and refilled above the high-water. Failures to reach Redis or the database
 * surface as {@link CenterUnavailableException}; while the database is down the stock keeps serving and refills
 * retry. Thread-safe; the executor may be shared.
 */
public class RedisSerialNumbers implements SerialNumbers, AutoCloseable {

    /** The {@link SerialRuleStatus#store()} of these serials. */
    static final String STORE = "redis";
    private static final LuaScript TAKE = LuaScript.load(RedisSerialNumbers.class, "serial-take");

    private final RedisScriptExecutor executor;
    private final SerialRules rules;
    private final RedisSerialOptions options;
    private final SerialStockRefiller refiller;
    /**
     * The stock each rule used last, so a call does no date arithmetic while the day and the zone's offset stay
     * the same ({@link SerialStock#holds}).
     */
    private final Map<String, SerialStock> lastStocks = new ConcurrentHashMap<>();
    private final LongAdder waitedCalls = new LongAdder();
    /** Per rule, for {@link #ruleStatuses()}; a stock looks its rule's entry up once, when it is created. */
    private final Map<String, SerialRuleStats> stats = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param executor runs the Lua scripts on Redis
     * @param store the durable high-waters (and the rule table)
     * @param rules the rule lookup over the same store
     * @param options key prefix, lock ttl, bounded wait, refill cover, run-id check, clock
     */
    public RedisSerialNumbers(RedisScriptExecutor executor, SerialStore store, SerialRules rules,
                              RedisSerialOptions options) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.options = Objects.requireNonNull(options, "options");
        this.refiller = new SerialStockRefiller(executor, Objects.requireNonNull(store, "store"), options);
    }

    @Override
    public String next(String rule) {
        long now = options.clock().millis();
        SerialStock stock = stock(rules.get(rule), now);
        return stock.rule.format(stock.dateText, take(stock, 1, now));
    }

    @Override
    public List<String> next(String rule, int count) {
        SerialRule r = rules.get(rule);
        r.checkCount(count);
        long now = options.clock().millis();
        SerialStock stock = stock(r, now);
        long first = take(stock, count, now);
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(r.format(stock.dateText, first + i));
        }
        return out;
    }

    /**
     * The stock of the rule's period at {@code now}, the call's one clock reading: the same date gives the
     * period's keys and the printed date.
     */
    private SerialStock stock(SerialRule rule, long now) {
        SerialStock s = lastStocks.get(rule.name());
        if (s != null && s.rule == rule && s.holds(now)) {
            return s;
        }
        LocalDate date = rule.date(now);
        if (s != null && s.rule == rule && s.date.equals(date)) {
            return s;
        }
        s = new SerialStock(rule, date, now, options, stats.computeIfAbsent(rule.name(), SerialRuleStats::new));
        lastStocks.put(rule.name(), s);
        return s;
    }

    /**
     * Takes {@code count} numbers from {@code stock}; returns the first. A caller that finds the stock short
     * asks for a refill and polls the stock until it lands, so its wait is bounded by {@code max-wait} even
     * when the database hangs.
     */
    private long take(SerialStock stock, int count, long now) {
        try {
            return takeOrWait(stock, count, now);
        } catch (SerialExhaustedException e) {
            // a batch larger than what is left is refused while single takes still work: not a failure of the rule
            if (count == 1) {
                stock.stats.failed(e);
            }
            throw e;
        } catch (RuntimeException e) {
            stock.stats.failed(e);
            throw e;
        }
    }

    private long takeOrWait(SerialStock stock, int count, long now) {
        if (closed) {
            throw new IdWorkerException("RedisSerialNumbers is closed");
        }
        SerialRule rule = stock.rule;
        // one deadline for the whole call: the takes, however long the client's socket timeout, and the wait
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        long pause = 1;
        boolean waited = false;
        while (true) {
            Taken t = takeOnce(stock, count, now, deadline);
            if (t.status == Status.OK) {
                stock.stats.issued(stock.period, count, t.left, t.first + count - 1);
                if (t.left <= rule.critical()) {
                    refiller.refillInBackground(stock, 1);
                }
                return t.first;
            }
            if (t.status == Status.MAX) {
                throw new SerialExhaustedException(rule.name(), stock.period, rule.max());
            }
            if (!waited) {
                waited = true;
                waitedCalls.increment();
                stock.stats.waited();
            }
            SerialStockRefiller.RefillState state = refiller.refillInBackground(stock, count);
            RuntimeException failure = state.lastFailure;
            if (failure instanceof SerialExhaustedException && state.exhaustedMax >= rule.max()) {
                // the database holds no number of the period below max: the stock will never serve this call
                throw new SerialExhaustedException(rule.name(), stock.period, rule.max());
            }
            if (failure instanceof SerialPeriodMovedBackException && !state.running.get()
                    && state.lastFailure instanceof SerialPeriodMovedBackException movedBack) {
                // the database refuses the period until an operator raises its high-water: waiting cannot help.
                // A refill running now (the operator may have raised it) is awaited; its failure comes back here
                throw movedBack;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SerialStockEmptyException(rule.name(), stock.period, options.maxWait(),
                        RedisSerialOptions.MAX_WAIT_PROPERTY, failure);
            }
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(pause)));
            pause = Math.min(10, pause * 2);
            now = options.clock().millis();
        }
    }

    private enum Status { OK, MISSING, SHORT, MAX }

    private record Taken(Status status, long first, long left) {
    }

    /**
     * One take; {@code now} picks the demand bucket. Redis's answer is awaited until {@code deadline} only: a take
     * that completes in Redis after that leaves its numbers unused (a gap), never issued twice.
     */
    private Taken takeOnce(SerialStock stock, int count, long now, long deadline) {
        List<Object> reply = executor.execute(TAKE, stock.takeKeys(SerialStock.bucket(now)), stock.takeArgs(count),
                deadline, stock.takeTimedOut);
        String context = stock.takeContext;
        // a take that issued answers {last, left}: integers, no status text to decode
        if (!reply.isEmpty() && reply.get(0) instanceof Number last) {
            return new Taken(Status.OK, last.longValue() - count + 1, ScriptReplies.number(reply, 1, context));
        }
        return switch (ScriptReplies.text(reply, 0, context)) {
            case "MISSING" -> new Taken(Status.MISSING, -1, -1);
            case "SHORT" -> new Taken(Status.SHORT, -1, ScriptReplies.number(reply, 1, context));
            case "MAX" -> new Taken(Status.MAX, -1, 0);
            // integers as text from a client that gives them so; anything else is no number and fails here
            default -> new Taken(Status.OK, ScriptReplies.number(reply, 0, context) - count + 1,
                    ScriptReplies.number(reply, 1, context));
        };
    }

    /** Calls that found the stock short and waited for a refill. */
    public long waitedCalls() {
        return waitedCalls.sum();
    }

    /** Refills this instance installed. */
    public long refills() {
        return refiller.refills();
    }

    /** Size of the last refill this instance installed, 0 before the first. */
    public long lastRefillSize() {
        return refiller.lastRefillSize();
    }

    /**
     * Reads memory only: per rule, what this node's last take left in the shared stock, its own hand-outs,
     * refills and waits, and whether its last call failed.
     */
    @Override
    public List<SerialRuleStatus> ruleStatuses() {
        Set<String> names = new TreeSet<>(rules.names());
        names.addAll(stats.keySet());
        List<SerialRuleStatus> out = new ArrayList<>(names.size());
        for (String name : names) {
            out.add(statusOf(name));
        }
        return out;
    }

    /** Reads memory only: the status of one rule, or empty when this node neither knows nor served it. */
    @Override
    public Optional<SerialRuleStatus> ruleStatus(String rule) {
        if (!stats.containsKey(rule) && !rules.names().contains(rule)) {
            return Optional.empty();
        }
        return Optional.of(statusOf(rule));
    }

    private SerialRuleStatus statusOf(String name) {
        // the rule as last read gives max, so a max an operator raised counts at once; else the one served last
        SerialStock last = lastStocks.get(name);
        SerialRule known = rules.cached(name).orElse(last == null ? null : last.rule);
        return stats.computeIfAbsent(name, SerialRuleStats::new).status(STORE, known, options.clock().millis())
                .refusedFor(rules.refusal(name));
    }

    /** Stops background refills; later calls fail. The stocks stay in Redis for the other nodes. */
    @Override
    public void close() {
        closed = true;
        refiller.close();
    }

    @Override
    public String toString() {
        return "RedisSerialNumbers[" + options + "]";
    }
}
