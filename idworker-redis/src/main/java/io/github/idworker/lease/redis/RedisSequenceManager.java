package io.github.idworker.lease.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.LossGuardLoweredException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisKeyPrefix;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.snowflake.WorkerIdPreference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Leases worker ids from Redis. The algorithm lives in three Lua scripts ({@code lease-borrow.lua},
 * {@code lease-renew.lua}, {@code lease-return.lua}); a {@link RedisScriptExecutor} only runs them, so Jedis,
 * spring-data-redis or any other client share one implementation.
 *
 * <p>A namespace is one Redis hash, {@code {idworker:ns1}:lease} for prefix {@code idworker} and namespace
 * {@code ns1} (the braces are the Redis Cluster hash tag). Its fields:
 * <ul>
 *   <li>{@code id, run_id, floor, guard, ms}: the data generation marker;</li>
 *   <li>{@code layout}: the identifier layout pinned at the first borrow ({@link LeaseRequest#layout()});</li>
 *   <li>{@code slots_created}: slots {@code 0 .. slots_created-1} have been claimed before;</li>
 *   <li>one field per slot, named by its id, e.g. {@code 3 -> 1763912375678|1763912360678|<owner>|host=..;pid=..;started=..}:
 *       stored high-water (ms), lease end (Redis ms), owner token (empty while free) and who held it.</li>
 * </ul>
 * Marker and slot data share one key, so they cannot be lost separately (DESIGN rule 9): eviction, a
 * {@code DEL} or a restart without persistence removes the namespace as a whole, and a slot can never lose its
 * high-water but keep its owner. Versions before this layout kept five keys ({@code :gen}, {@code :owner},
 * {@code :expires}, {@code :hw}, {@code :info}); they are not read, except that a borrow refuses to start while
 * they hold a live lease, since old and new workers would hand out the same slots.
 *
 * <p>Invariant: the effective high-water of a slot is never below any timestamp a past holder of the slot may
 * still issue, so a new holder that issues only above it cannot repeat an identifier. This holds across Redis
 * restarts without persistence, restored snapshots, failovers, eviction and records deleted by hand, as long
 * as every worker's ttl + maxSkew is at most the loss guard of the namespace's workers (after a total loss the new
 * floor is computed from the first borrower's loss guard, {@code idworker.lease.loss-guard}). Worker clocks more than {@code maxSkew} ahead of the Redis clock are refused
 * ({@link ClockAheadOfCentreException}) by borrow and renew alike, so no stored high-water exceeds the Redis clock
 * + ttl + maxSkew at the time it was stored (DESIGN rule 13); clocks behind are safe by the fence.
 *
 * <p>Steps, each one Lua call using the Redis clock ({@code TIME}):
 * <ol>
 *   <li><b>Clock.</b> A borrow whose worker clock is more than {@code maxSkew} ahead of {@code TIME}, or a renewal
 *       asking for a high-water above both the stored one and {@code TIME + ttl + maxSkew}, writes nothing and
 *       raises {@link ClockAheadOfCentreException} naming both clocks.</li>
 *   <li><b>Layout.</b> A borrow whose layout differs from the pinned one claims nothing:
 *       {@link LayoutMismatchException}. The first borrow, and the first after the hash was lost, pins its own;
 *       a Redis that loses the namespace also loses the pin, so the layout must simply never change.</li>
 *   <li><b>Generation.</b> Every call reads the Redis process's identity, its {@code run_id} and its
 *       {@code master_replid} ({@code INFO server}, {@code INFO replication}; a restart changes the first, a
 *       promotion — also the fail-back to a demoted master — the second). When a
 *       borrow finds the marker missing or carrying another identity (data lost or evicted, old snapshot
 *       restored, failover), it starts a new generation: {@code id} = Redis time in microseconds, {@code ms} =
 *       Redis time, {@code floor = max(old floor + 1, now + guard)}, where {@code guard} is the largest
 *       loss guard a borrower of the namespace asked for (this borrower's own when the marker is gone). While
 *       the marker survives, a borrow with a smaller loss guard than the stored one claims nothing:
 *       {@link LossGuardLoweredException}. Renew and return never start a generation; until a borrow has, they fail or do nothing, and a
 *       later start only raises the floor.</li>
 *   <li><b>Loss per record.</b> A slot below {@code slots_created} whose field is missing (deleted by hand) is
 *       lost data: its effective high-water is {@code max(generation floor, now + guard)}. Any other slot's is
 *       {@code max(its high-water, generation floor)}; a slot never claimed has the generation floor.</li>
 *   <li><b>Borrow.</b> Claims nothing in the millisecond its generation started (the script answers
 *       {@code RETRY} and this class calls again a millisecond later). A slot is claimable when its record is
 *       missing, it has no owner or its lease ended before now; a new slot is always {@code slots_created},
 *       which the claim raises by one. It takes the lowest claimable slot whose effective high-water is already
 *       below the borrower's clock, otherwise the claimable slot with the lowest effective high-water, and in
 *       the same call stores owner, {@code expires = now + ttl}, {@code hw = max(effective + 1, workerNow + ttl)}
 *       (for a lost record {@code max(effective, workerNow + ttl)}: the holder may have to renew before issuing)
 *       and info. The lease's floor is the effective high-water and its generation the marker's id. No
 *       claimable slot: {@link WorkerIdExhaustedException}. The reply carries the server's
 *       {@code maxmemory-policy}; an {@code allkeys-*} policy is logged as a warning once per manager, because
 *       such a Redis may evict the namespace, after which every slot waits the loss guard.</li>
 *   <li><b>Preferred slot.</b> A borrow with {@link LeaseRequest#preferredSlot()} claims that slot only, in the same
 *       call and with the same floor, or raises {@link WorkerIdTakenException} while a live lease holds it. A slot
 *       at or above {@code slots_created} is claimed as a new one; the slots between get free records whose
 *       high-water is the generation floor, a never-claimed slot's, and {@code slots_created} moves past it. The
 *       script itself refuses a preferred slot outside {@code 0 .. slotCount - 1} before it writes anything,
 *       whatever the caller checked ({@link IdWorkerConfigurationException} naming
 *       {@code idworker.worker-id.preferred}).</li>
 *   <li><b>Renew.</b> A lease whose generation is not the current one is never renewed (after a stale restore
 *       its owner token may still be stored while a successor of the newer generation holds the slot); neither
 *       is a slot whose record is missing, owned by another token or by none. These raise
 *       {@link LeaseLostException} and change nothing. Otherwise {@code expires = now + lease ttl} and
 *       {@code hw = max(hw, requested)}; the stored value is what the holder may issue up to.</li>
 *   <li><b>Return.</b> Only the owner, in its generation, frees the slot: owner emptied, {@code expires = 0},
 *       {@code hw = last issued timestamp}. Anything else is left as it is.</li>
 * </ol>
 *
 * <p>Why the floors cover every old holder: each high-water stored at Redis time {@code t} is at most
 * {@code t + ttl + maxSkew}, at most {@code t + guard}. A renewal stores the holder's clock + ttl, a return the last issued timestamp. A
 * borrow's first high-water is {@code max(floor + 1, workerNow + ttl)} — which equals
 * {@link LeaseRequest#firstHighWater(long)} whenever the floor is behind the borrower's clock — rather than
 * {@code floor + 1 + ttl}: a floor ahead of now is either a generation floor started in an earlier millisecond
 * ({@code floor + 1 <= now + guard}), a lost record's {@code now + guard} (stored without the {@code + 1}: the
 * record may have been written in this very millisecond), or an expired lease's high-water, at most
 * {@code maxSkew} ahead once its ttl has passed, and the borrower has to wait for its clock to pass the floor
 * anyway, renewing from there. With {@code floor + 1 + ttl} a holder that borrowed just after one data
 * loss and was then cut off from Redis could issue above the floor set after a second loss. A generation
 * started, or a lost record found, at Redis time {@code t' >= t} thus has a floor at or above every high-water
 * stored before, and no holder of an older generation or of a lost record is renewed again.
 *
 * <p>Errors of the executor other than {@link IdWorkerException}s surface as
 * {@link CenterUnavailableException}; how long a call may hang is the Redis client's timeout (Jedis socket
 * timeout, {@code spring.data.redis.timeout}). Thread-safe; its only state besides the executor is whether it
 * has warned about the eviction policy.
 */
public class RedisSequenceManager implements ISequenceManager {

    /** The property that names the key prefix, quoted in configuration errors. */
    public static final String KEY_PREFIX_PROPERTY = RedisKeyPrefix.PROPERTY;

    private static final Logger log = LoggerFactory.getLogger(RedisSequenceManager.class);

    private static final LuaScript BORROW = LuaScript.load(RedisSequenceManager.class, "lease-borrow");
    private static final LuaScript RENEW = LuaScript.load(RedisSequenceManager.class, "lease-renew");
    private static final LuaScript RETURN = LuaScript.load(RedisSequenceManager.class, "lease-return");

    /** How long a borrow keeps asking again while its generation is starting (normally one millisecond). */
    private static final long MAX_RETRY_NANOS = 2_000_000_000L;

    private final RedisScriptExecutor executor;
    private final String keyPrefix;
    private final AtomicBoolean evictionWarned = new AtomicBoolean();

    /**
     * @param executor runs the Lua scripts on Redis
     * @param keyPrefix first part of every key's hash tag, e.g. {@code idworker}; must not contain braces
     * @throws IdWorkerConfigurationException when the prefix is blank or contains a brace
     */
    public RedisSequenceManager(RedisScriptExecutor executor, String keyPrefix) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.keyPrefix = RedisKeyPrefix.check(keyPrefix);
    }

    /**
     * A Redis key of a namespace, e.g. {@code keyOf("ns1", "lease")} is {@code {idworker:ns1}:lease}, the one
     * hash holding all of the namespace's lease data ({@link #leaseKey}). Other parts name keys of older
     * versions ({@code owner}, {@code expires}), read only to refuse a borrow beside their live leases.
     */
    public String keyOf(String namespace, String part) {
        return "{" + keyPrefix + ":" + namespace + "}:" + part;
    }

    /** The hash holding a namespace's generation marker, pinned layout, slot counter and slot records. */
    public String leaseKey(String namespace) {
        return keyOf(namespace, "lease");
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * @throws LayoutMismatchException when the namespace is pinned to another layout; nothing is claimed
     * @throws IdWorkerConfigurationException when the namespace still has live leases in the keys of an earlier
     *         idworker version (five keys per namespace instead of one hash)
     */
    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String namespace = checkNamespace(request.namespace());
        if (request.owner().isEmpty() || request.owner().indexOf('|') >= 0) {
            throw new IllegalArgumentException("owner token must be non-empty and free of '|' for the Redis "
                    + "centre, was '" + request.owner() + "'");
        }
        String info = "host=" + request.host() + ";pid=" + request.pid() + ";started=" + Instant.now();
        List<String> keys = List.of(leaseKey(namespace), keyOf(namespace, "owner"), keyOf(namespace, "expires"));
        List<String> args = List.of(
                Integer.toString(request.slotCount()),
                request.owner(),
                Long.toString(request.ttl().toMillis()),
                Long.toString(request.workerNowMillis()),
                Long.toString(request.maxSkew().toMillis()),
                info,
                request.layout(),
                Long.toString(request.lossGuardMillis()),
                Integer.toString(request.preferredSlot()));
        List<Object> reply = run(BORROW, namespace, keys, args);
        String status = text(reply, 0);
        // counted from the first answer: a slow first call (a client connecting) must not use up the budget
        long retryUntil = System.nanoTime() + MAX_RETRY_NANOS;
        while ("RETRY".equals(status)) {
            if (System.nanoTime() > retryUntil) {
                throw new CenterUnavailableException("Redis kept answering RETRY to " + BORROW.name()
                        + " for namespace '" + namespace + "': its clock stands at or before the millisecond its "
                        + "generation in " + leaseKey(namespace) + " started (did the Redis clock step back?)", null);
            }
            pause();
            reply = run(BORROW, namespace, keys, args);
            status = text(reply, 0);
        }
        switch (status) {
            case "AHEAD" -> throw new ClockAheadOfCentreException(namespace, "borrow of a worker id",
                    request.workerNowMillis(), number(reply, 1), request.maxSkew().toMillis());
            case "LAYOUT" -> throw new LayoutMismatchException(namespace, text(reply, 1), request.layout());
            case "GUARD" -> throw new LossGuardLoweredException(namespace, number(reply, 1), request.lossGuardMillis());
            case "OLD_LEASES" -> throw new IdWorkerConfigurationException("idworker.namespace", "namespace '"
                    + namespace + "' has " + number(reply, 1) + " live lease(s) in the keys of an earlier idworker "
                    + "version (" + keyOf(namespace, "owner") + ", " + keyOf(namespace, "expires") + "); "
                    + "workers of the old and the new version would hand out the same worker ids. Stop every "
                    + "worker of the namespace before upgrading, or use a new namespace; the old keys can then be "
                    + "deleted.");
            case "TAKEN" -> throw new WorkerIdTakenException(namespace, request.preferredSlot(), text(reply, 1));
            case "PREFERRED" -> throw new IdWorkerConfigurationException(WorkerIdPreference.PREFERRED_PROPERTY,
                    "gives a worker id the Redis centre refused for namespace '" + namespace + "': it is none of "
                    + "the namespace's worker ids, allowed are 0 to " + (number(reply, 1) - 1)
                    + " (idworker.snowflake.worker-bits gives " + number(reply, 1) + " worker ids)");
            case "EXHAUSTED" -> {
                warnIfEvicting(namespace, text(reply, 1));
                throw new WorkerIdExhaustedException(namespace, request.slotCount());
            }
            default -> expect("OK", status, BORROW, reply);
        }
        warnIfEvicting(namespace, text(reply, 5));
        int slot = (int) number(reply, 1);
        long floor = number(reply, 2);
        long highWater = number(reply, 3);
        String generation = text(reply, 4);
        return WorkerLease.of(request, slot, floor, highWater, generation);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String namespace = checkNamespace(lease.namespace());
        List<Object> reply = run(RENEW, namespace, List.of(leaseKey(namespace)), List.of(
                Integer.toString(lease.workerId()),
                lease.owner(),
                Long.toString(lease.ttl().toMillis()),
                Long.toString(highWaterMillis),
                lease.generation(),
                Long.toString(lease.maxSkew().toMillis())));
        String status = text(reply, 0);
        if ("AHEAD".equals(status)) {
            throw new ClockAheadOfCentreException(namespace, "renewal of worker id " + lease.workerId(),
                    lease.workerMillisOf(highWaterMillis), number(reply, 1), lease.maxSkew().toMillis());
        }
        if ("LOST".equals(status)) {
            String reason = reply.size() > 1 ? text(reply, 1) : "";
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + namespace
                    + "' is no longer leased to owner " + lease.owner() + ": " + switch (reason) {
                        case "generation" -> "Redis lost or replaced its data since the lease was borrowed "
                                + "(restart without persistence, eviction, restored snapshot or failover; "
                                + "generation " + lease.generation() + " is gone), so the lease cannot be renewed";
                        case "record" -> "the slot's record in " + leaseKey(namespace) + " is gone (deleted), so "
                                + "another worker may hold the slot";
                        default -> "the slot was freed or another worker holds it";
                    } + ". Borrow another worker id.");
        }
        expect("OK", status, RENEW, reply);
        return lease.withHighWater(number(reply, 1));
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String namespace = checkNamespace(lease.namespace());
        List<Object> reply = run(RETURN, namespace, List.of(leaseKey(namespace)), List.of(
                Integer.toString(lease.workerId()),
                lease.owner(),
                Long.toString(lastIssuedMillis),
                lease.generation()));
        String status = text(reply, 0);
        if (!"OK".equals(status)) {
            expect("IGNORED", status, RETURN, reply);
        }
    }

    private void warnIfEvicting(String namespace, String maxmemoryPolicy) {
        if (maxmemoryPolicy.startsWith("allkeys-") && evictionWarned.compareAndSet(false, true)) {
            log.warn("Redis centre of idworker runs with maxmemory-policy {}: when memory runs short Redis may "
                            + "evict {}, the lease key of namespace '{}' (and those of other namespaces). idworker "
                            + "then treats the namespace as lost and every worker id waits ttl + max-skew before it "
                            + "issues again. Use maxmemory-policy noeviction or a volatile-* policy (idworker's keys "
                            + "have no expiry), or a Redis of its own for idworker.",
                    maxmemoryPolicy, leaseKey(namespace), namespace);
        }
    }

    private List<Object> run(LuaScript script, String namespace, List<String> keys, List<String> args) {
        List<Object> reply;
        try {
            reply = executor.execute(script, keys, args);
        } catch (IdWorkerException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CenterUnavailableException("Redis centre failed running " + script.name()
                    + " for namespace '" + namespace + "' (key " + leaseKey(namespace) + "): " + e, e);
        }
        if (reply == null || reply.isEmpty()) {
            throw new CenterUnavailableException("Redis centre gave an empty reply to " + script.name()
                    + " for namespace '" + namespace + "'", null);
        }
        return reply;
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CenterUnavailableException("interrupted while borrowing a worker id", e);
        }
    }

    private static String checkNamespace(String namespace) {
        if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
            throw new IdWorkerConfigurationException("idworker.namespace",
                    "must not contain '{' or '}' for the Redis centre, was '" + namespace + "'");
        }
        return namespace;
    }

    private static void expect(String wanted, String status, LuaScript script, List<Object> reply) {
        if (!wanted.equals(status)) {
            throw new CenterUnavailableException("Redis centre gave an unexpected reply to " + script.name()
                    + ": " + describe(reply), null);
        }
    }

    private static String text(List<Object> reply, int index) {
        return ScriptReplies.text(reply, index, "the Redis lease centre");
    }

    private static long number(List<Object> reply, int index) {
        return ScriptReplies.number(reply, index, "the Redis lease centre");
    }

    private static String describe(List<Object> reply) {
        return ScriptReplies.describe(reply);
    }

    @Override
    public String toString() {
        return "RedisSequenceManager[keyPrefix=" + keyPrefix + "]";
    }
}
