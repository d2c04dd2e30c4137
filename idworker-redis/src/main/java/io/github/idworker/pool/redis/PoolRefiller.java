package io.github.idworker.pool.redis;

import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.UnknownPoolEntityException;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.ScriptReplies;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Changes a pool's list in Redis, always under the pool's refill lock, so that no ID is ever handed out twice:
 * every ID appended comes from offsets the database reserved first, lies above every ID appended before (the
 * high-water, also after Redis lost the pool) and fits within {@code max-pool-size}. Steps of a refill:
 * <ol>
 *   <li>Take the refill lock ({@code SET NX PX lock-ttl} with a random token); another node holding it refills.</li>
 *   <li>Read the level again: another node may have refilled between the check and the lock.</li>
 *   <li>Reserve {@code k × step} offsets in the database first ({@link PoolStore#reserve}, which refuses a node
 *       of another environment split), {@code k} the whole chunks that fit below {@code max-pool-size} (at most
 *       {@code max-refill} IDs).</li>
 *   <li>When Redis lost the pool's high-water: seed it with the ID of the offset right below the reservation, made
 *       after the lock was taken — every ID appended before the loss came from offsets at or below it.</li>
 *   <li>Turn offsets into IDs through the environment ({@link HandOutOrder}).</li>
 *   <li>Append them with {@code pool-append.lua} in slices of whole chunks, each accepted only while this token holds
 *       the lock, only in the Redis that stamped the pool, only above the high-water and only within
 *       {@code max-pool-size}; a refused slice ends the refill, and its offsets stay unused (a gap).</li>
 *   <li>Release the lock by compare-and-delete.</li>
 * </ol>
 * Under the same lock it also drops a list older than the database ({@link #reconcile}) and cuts a list above a
 * lowered {@code max-pool-size} ({@link #trim}). Thread-safe; the counters count this node's work.
 */
final class PoolRefiller {

    // the log category operators know from before the split
    private static final Logger log = LoggerFactory.getLogger(RedisIdPools.class);
    private static final LuaScript INSPECT = LuaScript.load(PoolRefiller.class, "pool-inspect");
    private static final LuaScript APPEND = LuaScript.load(PoolRefiller.class, "pool-append");
    /** IDs of one append call: big enough to amortise the round trip, small enough not to stall Redis. */
    static final int APPEND_SLICE = 10_000;

    private final RedisScriptExecutor executor;
    private final PoolStore store;
    private final RedisPoolOptions options;
    private final PoolEnvironment environment;
    /** {@code e/E}, as the scripts compare and stamp it. */
    private final String environmentText;
    private final HandOutOrder order;
    final LongAdder refills = new LongAdder();
    final LongAdder appendedIds = new LongAdder();
    final LongAdder droppedIds = new LongAdder();

    PoolRefiller(RedisScriptExecutor executor, PoolStore store, RedisPoolOptions options) {
        this.executor = executor;
        this.store = store;
        this.options = options;
        this.environment = options.environment();
        this.environmentText = environment.toString();
        this.order = new HandOutOrder(environment);
    }

    /**
     * The pool as Redis holds it now.
     *
     * @param hw the largest ID appended, as Redis holds it; empty when unknown
     */
    record Inspect(long level, String state, long rate, String hw) {
    }

    Inspect inspect(TrackedPool pool) {
        List<Object> reply = executor.execute(INSPECT, pool.takeKeys, List.of());
        Inspect s = new Inspect(ScriptReplies.number(reply, 0, pool.context), ScriptReplies.text(reply, 1, pool.context),
                ScriptReplies.number(reply, 2, pool.context), ScriptReplies.text(reply, 3, pool.context));
        // a pool Redis lost (SEED) or must drop (RESET) serves nothing until refilled
        pool.sawLevel(s.state.equals("OK") ? s.level : 0);
        return s;
    }

    /**
     * Whether Redis's high-water is below the ID of the database's {@code current_offset}: after every completed
     * refill the two are equal, so a lower high-water means a refill is in flight, or the list is older than the
     * database (a snapshot loaded into the running Redis, a key prefix switched back, a refill that died between
     * reserving and appending).
     */
    boolean behind(Inspect s, long currentOffset) {
        if (!s.state.equals("OK") || s.hw.isEmpty() || currentOffset < 0) {
            return false; // an unseeded pool is empty or dropped before anything is appended
        }
        return s.hw.equals("-1") || Long.parseLong(s.hw) < Long.parseLong(idText(currentOffset));
    }

    /** The ID of {@code offset} as the scripts compare it; {@code -1} (below every ID) before any offset. */
    private String idText(long offset) {
        return offset < 0 ? "-1" : Long.toString(environment.id(Math.min(offset, environment.maxOffset())));
    }

    /**
     * Under the refill lock, checks again whether the list is behind the database and if so drops it, so no ID
     * older than the database's offset is handed out after this check.
     *
     * @return false when another node holds the lock (the pool stays unverified until a later check)
     */
    boolean reconcile(TrackedPool pool) {
        return underLock(pool, false, token -> {
            // the row after the lock: no refill of this pool is in flight now, stalled ones cannot append
            PoolEntity row = store.find(pool.key).orElseThrow(
                    () -> new UnknownPoolEntityException(pool.key, store.description()));
            Inspect s = inspect(pool);
            if (!behind(s, row.currentOffset())) {
                return true;
            }
            String hw = idText(row.currentOffset());
            List<Object> reply = executor.execute(APPEND, pool.appendKeys,
                    List.of(token, "DROP", "0", hw, hw, environmentText));
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("ENV")) {
                throw pool.environmentRefused(ScriptReplies.text(reply, 1, pool.context), environment);
            }
            if (!status.equals("OK")) {
                return false;
            }
            droppedIds.add(s.level);
            log.warn("ID pool '{}': Redis held IDs up to {} while the database has reserved up to offset {} (ID {}): "
                    + "the list is older than the database (a snapshot loaded into the running Redis, a key prefix "
                    + "switched back, or a refill that died between reserving and appending). Its {} IDs were "
                    + "dropped, a gap; refills continue above the database's offset", pool.key, s.hw,
                    row.currentOffset(), hw, s.level);
            return true;
        });
    }

    /**
     * Cuts the list's tail down to a {@code max-pool-size} an operator lowered, in whole chunks, under the refill
     * lock: the tail holds the highest IDs, so the cut is a gap; nothing happens when another node holds the lock.
     */
    void trim(TrackedPool pool, PoolEntity e) {
        underLock(pool, false, token -> {
            int chunk = e.type() == IncreasingType.TREND ? e.step() : 1;
            List<Object> reply = executor.execute(APPEND, pool.appendKeys, List.of(token, "TRIM",
                    Long.toString(e.maxPoolSize()), Integer.toString(chunk), "0", environmentText));
            log.info("ID pool '{}' held more than its max-pool-size {}: its tail was cut ({}), a gap", pool.key,
                    e.maxPoolSize(), ScriptReplies.describe(reply));
            return true;
        });
    }

    /**
     * Runs {@code work} holding the pool's refill lock ({@link RefillLock}), releasing it afterwards.
     *
     * @return what {@code work} returned, or {@code whenHeld} when another node holds the lock
     */
    private boolean underLock(TrackedPool pool, boolean whenHeld, Function<String, Boolean> work) {
        String token = RefillLock.tryAcquire(executor, pool.lockKeys, options.lockTtl(), pool.context);
        if (token == null) {
            return whenHeld;
        }
        try {
            return work.apply(token);
        } finally {
            RefillLock.release(executor, pool.lockKeys, token, pool.context);
        }
    }

    /** The refill under the lock; false when another node holds the lock. */
    boolean refill(TrackedPool pool, PoolEntity settings) {
        long started = System.nanoTime();
        return underLock(pool, false, token -> {
            Inspect s = inspect(pool);
            boolean seeded = s.state.equals("OK");
            if (seeded && s.level >= settings.thresholdLevel()) {
                return true; // another node refilled between the check and the lock
            }
            // an unseeded pool is dropped (RESET) or empty (SEED) by the time its high-water is seeded
            long level = seeded ? s.level : 0;
            long room = settings.maxPoolSize() - level;
            long wanted = Math.min(room, options.maxRefill());
            int chunks = (int) Math.max(1, wanted / settings.step());
            // the store refuses a node of another environment split here, before it writes anything to Redis
            PoolReservation r = store.reserve(pool.key, chunks, environment);
            if (!seeded && !seed(pool, token, r)) {
                droppedIds.add(r.size());
                return true;
            }
            append(pool, token, r);
            pool.refills.increment();
            pool.refillNanos.add(System.nanoTime() - started);
            return true;
        });
    }

    /**
     * Seeds the high-water from the offset right below reservation {@code r}, made after the lock was taken:
     * every ID appended before Redis lost the pool came from a reservation committed before that append, so from
     * an offset at or below it. The reservation was checked against the row's environment, so a node of another
     * split never seeds.
     *
     * @return false when the lock was lost meanwhile
     */
    private boolean seed(TrackedPool pool, String token, PoolReservation r) {
        String hw = idText(r.firstOffset() - 1);
        for (int attempt = 0; attempt < 2; attempt++) {
            List<Object> reply = executor.execute(APPEND, pool.appendKeys,
                    List.of(token, "SEED", "0", hw, hw, environmentText));
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("OK")) {
                log.info("ID pool '{}' in Redis had no high-water (new, or Redis lost it): seeded at {}, right below "
                        + "the offsets {}..{} just reserved", pool.key, hw, r.firstOffset(), r.lastOffset());
                return true;
            }
            if (!status.equals("RESET")) {
                log.info("ID pool '{}': could not seed the high-water ({}); its {} reserved IDs are left unused (a "
                        + "gap) and the next check tries again", pool.key, ScriptReplies.describe(reply), r.size());
                return false;
            }
        }
        return false;
    }

    /** Appends the reserved offsets' IDs in slices of whole chunks; a refused slice drops the rest (a gap). */
    private void append(TrackedPool pool, String token, PoolReservation r) {
        PoolEntity e = r.entity();
        long[] ids = order.idsOf(r);
        int chunk = e.type() == IncreasingType.TREND ? e.step() : 1;
        int slice = Math.max(chunk, APPEND_SLICE / chunk * chunk);
        String maxSize = Long.toString(e.maxPoolSize());
        for (int from = 0; from < ids.length; from += slice) {
            int to = Math.min(ids.length, from + slice);
            long lowest = Long.MAX_VALUE;
            long highest = Long.MIN_VALUE;
            List<String> args = new ArrayList<>(to - from + 6);
            args.add(token);
            args.add("APPEND");
            args.add(maxSize);
            args.add(null);
            args.add(null);
            args.add(environmentText);
            for (int i = from; i < to; i++) {
                lowest = Math.min(lowest, ids[i]);
                highest = Math.max(highest, ids[i]);
                args.add(Long.toString(ids[i]));
            }
            if (to == ids.length) {
                // the high-water covers the whole reservation, also offsets a gap skipped at its end, so it equals
                // the database's offset after every completed refill
                highest = Math.max(highest, environment.id(r.lastOffset()));
            }
            args.set(3, Long.toString(lowest));
            args.set(4, Long.toString(highest));
            List<Object> reply = executor.execute(APPEND, pool.appendKeys, args);
            String status = ScriptReplies.text(reply, 0, pool.context);
            if (status.equals("ENV")) {
                droppedIds.add(ids.length - from);
                throw pool.environmentRefused(ScriptReplies.text(reply, 1, pool.context), environment);
            }
            if (!status.equals("OK")) {
                int dropped = ids.length - from;
                droppedIds.add(dropped);
                log.warn("ID pool '{}': Redis refused an append ({}); {} reserved IDs from {} on are left unused (a "
                        + "gap){}", pool.key, ScriptReplies.describe(reply), dropped, lowest,
                        status.equals("STALE") ? ". The database's current_offset is below IDs already in Redis: "
                                + "was the table restored from a backup? Refills continue above it" : "");
                return;
            }
            appendedIds.add(to - from);
        }
        refills.increment();
        log.debug("ID pool '{}': appended {} IDs from offsets {}..{}", pool.key, ids.length, r.firstOffset(),
                r.lastOffset());
    }
}
