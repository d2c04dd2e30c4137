package io.github.idworker.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Leases worker ids from Redis. The algorithm lives in three Lua scripts ({@code lease-borrow.lua},
 * {@code lease-renew.lua}, {@code lease-return.lua}); a {@link RedisScriptExecutor} only runs them, so Jedis,
 * spring-data-redis or any other client share one implementation.
 *
 * <p>Keys of a namespace, all under one hash tag so every script runs on Redis Cluster (prefix {@code idworker}
 * and namespace {@code ns1} shown):
 * <ul>
 *   <li>{@code {idworker:ns1}:gen} — hash {@code id, run_id, floor, guard, ms}: the data generation marker;</li>
 *   <li>{@code {idworker:ns1}:owner}, {@code :expires}, {@code :hw}, {@code :info} — hashes keyed by slot id
 *       holding the owner token, the lease end (Redis ms), the stored high-water (ms) and host/pid/start time.</li>
 * </ul>
 *
 * <p>Invariant: the effective high-water of a slot, {@code max(hw[slot], gen.floor)}, is never below any
 * timestamp a past holder of the slot may still issue, so a new holder that issues only above it cannot repeat
 * an identifier. This holds across Redis restarts without persistence, restored snapshots and failovers, as long
 * as worker clocks stay within {@code maxSkew} of the Redis clock and the namespace's workers agree on ttl and
 * skew (after a total loss the new floor is computed from the first borrower's ttl + maxSkew).
 *
 * <p>Steps, each one Lua call using the Redis clock ({@code TIME}):
 * <ol>
 *   <li><b>Generation.</b> Every call reads the Redis process's {@code run_id} ({@code INFO server}). When a
 *       borrow finds the marker missing or carrying another {@code run_id} (data lost, old snapshot restored,
 *       failover), it starts a new generation: {@code id} = Redis time in microseconds, {@code ms} = Redis time,
 *       {@code floor = max(old floor + 1, now + guard)}, where {@code guard} is the largest
 *       {@code ttl + maxSkew} a borrower of the namespace asked for (this borrower's own when the marker is
 *       gone). Renew and return never start a generation; until a borrow has, they fail or do nothing, and a
 *       later start only raises the floor.</li>
 *   <li><b>Borrow.</b> Claims nothing in the millisecond its generation started (the script answers
 *       {@code RETRY} and this class calls again a millisecond later). Scans slots {@code 0 .. slotCount-1}; a
 *       slot is claimable when it has no owner or its lease ended before now. It takes the lowest claimable slot
 *       whose effective high-water is already below the borrower's clock, otherwise the claimable slot with the
 *       lowest effective high-water, and in the same call stores owner, {@code expires = now + ttl},
 *       {@code hw = max(effective + 1, workerNow + ttl)} and info. The lease's floor is the effective high-water
 *       and its generation the marker's id. No claimable slot: {@link WorkerIdExhaustedException}.</li>
 *   <li><b>Renew.</b> A lease whose generation is not the current one is never renewed (after a stale restore
 *       its owner token may still be stored while a successor of the newer generation holds the slot); neither
 *       is a slot owned by another token or by none. Both raise {@link LeaseLostException} and change nothing.
 *       Otherwise {@code expires = now + lease ttl} and {@code hw = max(hw, requested)}; the stored value is
 *       what the holder may issue up to.</li>
 *   <li><b>Return.</b> Only the owner, in its generation, frees the slot: owner removed, {@code expires = 0},
 *       {@code hw = last issued timestamp}. Anything else is left as it is.</li>
 * </ol>
 *
 * <p>Why the generation floor covers every old holder: each high-water stored at Redis time {@code t} is at most
 * {@code t + ttl + maxSkew}. A renewal stores the holder's clock + ttl, a return the last issued timestamp. A
 * borrow's first high-water is {@code max(floor + 1, workerNow + ttl)} — which equals
 * {@link LeaseRequest#firstHighWater(long)} whenever the floor is behind the borrower's clock — rather than
 * {@code floor + 1 + ttl}: a floor ahead of now is either a generation floor started in an earlier millisecond
 * ({@code floor + 1 <= now + guard}) or an expired lease's high-water, at most {@code maxSkew} ahead once its ttl
 * has passed, and the borrower has to wait for its clock to pass the floor anyway, renewing from there. With
 * {@code floor + 1 + ttl} a holder that borrowed just after one data loss and was then cut off from Redis could
 * issue above the floor set after a second loss. A generation started after a loss at Redis time
 * {@code t' >= t} thus has a floor at or above every high-water stored before, and no holder of an older
 * generation is renewed again.
 *
 * <p>Errors of the executor other than {@link IdWorkerException}s surface as
 * {@link CenterUnavailableException}. Thread-safe and stateless apart from its executor.
 */
public class RedisSequenceManager implements ISequenceManager {

    /** The property that names the key prefix, quoted in configuration errors. */
    public static final String KEY_PREFIX_PROPERTY = "idworker.redis.key-prefix";

    private static final LuaScript BORROW = LuaScript.load("lease-borrow");
    private static final LuaScript RENEW = LuaScript.load("lease-renew");
    private static final LuaScript RETURN = LuaScript.load("lease-return");

    /** How long a borrow keeps asking again while its generation is starting (normally one millisecond). */
    private static final long MAX_RETRY_NANOS = 2_000_000_000L;

    private final RedisScriptExecutor executor;
    private final String keyPrefix;

    /**
     * @param executor runs the Lua scripts on Redis
     * @param keyPrefix first part of every key's hash tag, e.g. {@code idworker}; must not contain braces
     * @throws IdWorkerConfigurationException when the prefix is blank or contains a brace
     */
    public RedisSequenceManager(RedisScriptExecutor executor, String keyPrefix) {
        this.executor = Objects.requireNonNull(executor, "executor");
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new IdWorkerConfigurationException(KEY_PREFIX_PROPERTY, "must not be blank");
        }
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IdWorkerConfigurationException(KEY_PREFIX_PROPERTY,
                    "must not contain '{' or '}' (idworker adds the Redis Cluster hash tag itself), was '"
                            + keyPrefix + "'");
        }
        this.keyPrefix = keyPrefix;
    }

    /**
     * The Redis key of one part of a namespace's lease records, e.g. {@code keyOf("ns1", "hw")} is
     * {@code {idworker:ns1}:hw}. Parts: {@code gen}, {@code owner}, {@code expires}, {@code hw}, {@code info}.
     */
    public String keyOf(String namespace, String part) {
        return "{" + keyPrefix + ":" + namespace + "}:" + part;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String namespace = checkNamespace(request.namespace());
        String info = "host=" + request.host() + ";pid=" + request.pid() + ";started=" + Instant.now();
        List<String> args = List.of(
                Integer.toString(request.slotCount()),
                request.owner(),
                Long.toString(request.ttl().toMillis()),
                Long.toString(request.workerNowMillis()),
                Long.toString(request.maxSkew().toMillis()),
                info);
        long retryUntil = System.nanoTime() + MAX_RETRY_NANOS;
        List<Object> reply = run(BORROW, namespace, true, args);
        String status = text(reply, 0);
        while ("RETRY".equals(status)) {
            if (System.nanoTime() > retryUntil) {
                throw new CenterUnavailableException("Redis kept answering RETRY to " + BORROW.name()
                        + " for namespace '" + namespace + "': its clock stands at or before the millisecond its "
                        + "generation " + keyOf(namespace, "gen") + " started (did the Redis clock step back?)", null);
            }
            pause();
            reply = run(BORROW, namespace, true, args);
            status = text(reply, 0);
        }
        if ("EXHAUSTED".equals(status)) {
            throw new WorkerIdExhaustedException(namespace, request.slotCount());
        }
        expect("OK", status, BORROW, reply);
        int slot = (int) number(reply, 1);
        long floor = number(reply, 2);
        long highWater = number(reply, 3);
        String generation = text(reply, 4);
        return WorkerLease.of(request, slot, floor, highWater, generation);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String namespace = checkNamespace(lease.namespace());
        List<Object> reply = run(RENEW, namespace, false, List.of(
                Integer.toString(lease.workerId()),
                lease.owner(),
                Long.toString(lease.ttl().toMillis()),
                Long.toString(highWaterMillis),
                lease.generation()));
        String status = text(reply, 0);
        if ("LOST".equals(status)) {
            String reason = reply.size() > 1 ? text(reply, 1) : "";
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + namespace
                    + "' is no longer leased to owner " + lease.owner() + ": "
                    + ("generation".equals(reason)
                            ? "Redis lost or replaced its data since the lease was borrowed (restart without "
                                    + "persistence, restored snapshot or failover; generation " + lease.generation()
                                    + " is gone), so the lease cannot be renewed"
                            : "the slot was freed or another worker holds it")
                    + ". Borrow another worker id.");
        }
        expect("OK", status, RENEW, reply);
        return lease.withHighWater(number(reply, 1));
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String namespace = checkNamespace(lease.namespace());
        List<Object> reply = run(RETURN, namespace, false, List.of(
                Integer.toString(lease.workerId()),
                lease.owner(),
                Long.toString(lastIssuedMillis),
                lease.generation()));
        String status = text(reply, 0);
        if (!"OK".equals(status)) {
            expect("IGNORED", status, RETURN, reply);
        }
    }

    private List<Object> run(LuaScript script, String namespace, boolean withInfo, List<String> args) {
        List<String> keys = withInfo
                ? List.of(keyOf(namespace, "gen"), keyOf(namespace, "owner"), keyOf(namespace, "expires"),
                        keyOf(namespace, "hw"), keyOf(namespace, "info"))
                : List.of(keyOf(namespace, "gen"), keyOf(namespace, "owner"), keyOf(namespace, "expires"),
                        keyOf(namespace, "hw"));
        List<Object> reply;
        try {
            reply = executor.execute(script, keys, args);
        } catch (IdWorkerException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CenterUnavailableException("Redis centre failed running " + script.name()
                    + " for namespace '" + namespace + "' (keys " + keyOf(namespace, "*") + "): " + e, e);
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
