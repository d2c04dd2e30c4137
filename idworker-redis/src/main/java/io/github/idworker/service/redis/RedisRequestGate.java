package io.github.idworker.service.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisKeyPrefix;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.service.RequestGate;
import io.github.idworker.service.ServiceApp;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The {@link RequestGate} of every instance sharing one Redis: one {@code request-admit.lua} call per call to the
 * service. Guarantees: a nonce is recorded with {@code SET NX PX}, so exactly one of the calls carrying it is
 * admitted, whichever instances they reach; a replay survives no loss of Redis's data — a Redis that restarted
 * (empty, or from a snapshot older than the last nonces) or a replica promoted without the last nonces has a new
 * identity, and every call stamped before that identity's start plus the guard (the window plus the clocks'
 * tolerance: the latest a nonce recorded before could be stamped) is refused; the rate counts IDs per second of
 * the Redis clock, so every instance counts against the same second.
 *
 * <p>Keys, under the hash tag of the application so all of one call sit on one Redis Cluster slot, and the marker
 * on the node of the nonces it vouches for: {@code {<prefix>:app:<appKey>}:nonce:<nonce>} (a string, expiring when
 * the call's timestamp can no longer pass), {@code {<prefix>:app:<appKey>}:rate} (a hash, expiring 10 s after its
 * second) and {@code {<prefix>:app:<appKey>}:epoch} (a hash {@code id, start}, no expiry: the Redis identity that
 * has held the application's nonces since {@code start}, Redis clock).
 *
 * <p>Steps of one call, in the script:
 * <ol>
 *   <li>read the identity ({@code master_replid} of {@code INFO replication}, drawn anew at every start and every
 *       promotion); when the marker is missing (a new application, or its keys lost) or names another identity
 *       (a restart, a promotion, a resharding that moved the slot here), the identity starts at the Redis
 *       process's start (rounded up) if it never was a replica since — nothing it held was lost since then, and
 *       every nonce lost earlier was recorded before it — or at a foreign marker's own start when that is later;
 *       after a promotion, now; write the marker;</li>
 *   <li>a call stamped before start + guard is {@link Decision#STORE_RESET}, nothing recorded;</li>
 *   <li>{@code SET NX PX} the nonce, else {@link Decision#REPLAY}; then the entity; then the rate.</li>
 * </ol>
 * Cost: one {@code INFO replication} (a few microseconds) and one hash read per call; {@code INFO server} only when
 * the marker is written. The steps live in {@code request-gate.lua}, composed in front of {@code request-admit.lua}
 * and of {@code request-admit-take.lua}, which {@link #admitAndTake} runs to admit a signed pool call and take its
 * IDs in one round trip when the pools share this gate's single Redis. After a restart or fail-over, calls stamped within the guard after the new identity's
 * start are refused, so correct clients are refused for up to the guard (6 minutes by default) after it — every
 * application alike, however late its first call — and fail over to another environment.
 * Not covered: keys deleted one by one on a running Redis (an operator's {@code DEL}, a {@code FLUSHALL}, eviction)
 * — Redis must run with {@code maxmemory-policy noeviction}, as for the other Redis stores.
 */
public class RedisRequestGate implements RequestGate {

    private static final LuaScript GATE_STEPS = LuaScript.load(RedisRequestGate.class, "request-gate");
    private static final LuaScript ADMIT = LuaScript.compose("request-admit", LuaScript.IDENTITY, GATE_STEPS,
            LuaScript.load(RedisRequestGate.class, "request-admit"));
    /** The gate's steps, then a pool's take: one round trip for a signed pool call on a single Redis. */
    private static final LuaScript ADMIT_TAKE = LuaScript.compose("request-admit-take", LuaScript.IDENTITY,
            GATE_STEPS,
            RedisIdPools.TAKE_STEPS, LuaScript.load(RedisRequestGate.class, "request-admit-take"));
    private static final Admission REPLAY = new Admission(Decision.REPLAY, Duration.ZERO);
    private static final Admission STORE_RESET = new Admission(Decision.STORE_RESET, Duration.ZERO);
    private static final Admission FORBIDDEN = new Admission(Decision.FORBIDDEN, Duration.ZERO);

    private final RedisScriptExecutor redis;
    private final String keyPrefix;

    public RedisRequestGate(RedisScriptExecutor redis, String keyPrefix) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.keyPrefix = RedisKeyPrefix.check(keyPrefix);
    }

    /** The hash tag of one application's keys. */
    public String tag(String appKey) {
        return "{" + keyPrefix + ":app:" + appKey + "}";
    }

    @Override
    public Admission admit(String appKey, String nonce, long timestampMillis, Duration nonceTtl,
                           Duration resetGuard, boolean allowed, int count, int maxPerSecond) {
        check(appKey, nonce, nonceTtl, resetGuard, count, maxPerSecond);
        List<Object> reply = redis.execute(ADMIT, keys(appKey, nonce),
                args(nonceTtl, resetGuard, timestampMillis, allowed, count, maxPerSecond));
        return admission(reply, appKey);
    }

    /**
     * Admits and takes in one {@code request-admit-take.lua} call when {@code pools} is a {@link RedisIdPools} on
     * the same single Redis as this gate ({@link RedisIdPools#takeBehind}); else {@link #admit}, then
     * {@link RedisIdPools#take}, each under its own hash tag (Redis Cluster). Either way the nonce is recorded
     * whenever {@link #admit} records it, and IDs are taken only for an admitted call; in one call a refusal of the
     * pool leaves the application's rate uncounted too.
     */
    @Override
    public AdmittedTake admitAndTake(String appKey, String nonce, long timestampMillis, Duration nonceTtl,
                                     Duration resetGuard, boolean allowed, int maxPerSecond, IdPools pools,
                                     String entity, int count) {
        if (pools instanceof RedisIdPools redisPools) {
            check(appKey, nonce, nonceTtl, resetGuard, count, maxPerSecond);
            RedisIdPools.Behind taken = redisPools.takeBehind(redis, ADMIT_TAKE, keys(appKey, nonce),
                    args(nonceTtl, resetGuard, timestampMillis, allowed, count, maxPerSecond), entity, count);
            if (taken != null) {
                List<Object> refusal = taken.refusal();
                return refusal == null ? new AdmittedTake(Admission.ADMITTED, taken.ids())
                        : new AdmittedTake(admission(refusal, appKey), null);
            }
        }
        return RequestGate.super.admitAndTake(appKey, nonce, timestampMillis, nonceTtl, resetGuard, allowed,
                maxPerSecond, pools, entity, count);
    }

    private static void check(String appKey, String nonce, Duration nonceTtl, Duration resetGuard, int count,
                              int maxPerSecond) {
        ServiceApp.checkKey(appKey, "appKey");
        // a count below one would lower the second's count in request-gate.lua and let later calls pass the limit
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        if (maxPerSecond < 1) {
            throw new IllegalArgumentException("maxPerSecond must be at least 1, was " + maxPerSecond);
        }
        if (nonce == null || nonce.isBlank()) {
            throw new IllegalArgumentException("nonce must not be blank");
        }
        Objects.requireNonNull(nonceTtl, "nonceTtl");
        if (resetGuard == null || resetGuard.isNegative()) {
            throw new IllegalArgumentException("resetGuard must not be negative, was " + resetGuard);
        }
    }

    /** request-admit.lua's KEYS. */
    private List<String> keys(String appKey, String nonce) {
        String tag = tag(appKey);
        return List.of(tag + ":nonce:" + nonce, tag + ":rate", tag + ":epoch");
    }

    /** request-admit.lua's ARGV. */
    private static List<String> args(Duration nonceTtl, Duration resetGuard, long timestampMillis, boolean allowed,
                                     int count, int maxPerSecond) {
        return List.of(Long.toString(Math.max(1, nonceTtl.toMillis())), allowed ? "1" : "0",
                Integer.toString(count), Integer.toString(maxPerSecond), Long.toString(timestampMillis),
                Long.toString(resetGuard.toMillis()));
    }

    /** request-admit.lua's reply as an admission; the context of an error is built only for an error. */
    private static Admission admission(List<Object> reply, String appKey) {
        String outcome = reply.isEmpty() ? "" : ScriptReplies.text(reply, 0, "");
        return switch (outcome) {
            case "OK" -> Admission.ADMITTED;
            case "REPLAY" -> REPLAY;
            case "RESET" -> STORE_RESET;
            case "FORBIDDEN" -> FORBIDDEN;
            case "RATE" -> new Admission(Decision.RATE_LIMITED,
                    Duration.ofMillis(Math.max(1, ScriptReplies.number(reply, 1, context(appKey)))));
            default -> throw new CenterUnavailableException("Redis reply " + ScriptReplies.describe(reply) + " to "
                    + context(appKey) + " is not one request-admit.lua gives", null);
        };
    }

    private static String context(String appKey) {
        return "request-admit for application '" + appKey + "'";
    }
}
