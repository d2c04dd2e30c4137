package io.github.idworker.service.redis;

import io.github.idworker.CenterUnavailableException;
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
 * the marker is written. After a restart or fail-over, calls stamped within the guard after the new identity's
 * start are refused, so correct clients are refused for up to the guard (6 minutes by default) after it — every
 * application alike, however late its first call — and fail over to another environment.
 * Not covered: keys deleted one by one on a running Redis (an operator's {@code DEL}, a {@code FLUSHALL}, eviction)
 * — Redis must run with {@code maxmemory-policy noeviction}, as for the other Redis stores.
 */
public class RedisRequestGate implements RequestGate {

    private static final LuaScript ADMIT = LuaScript.load(RedisRequestGate.class, "request-admit");

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
        ServiceApp.checkKey(appKey, "appKey");
        // a count below one would lower the second's count in request-admit.lua and let later calls pass the limit
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
        String tag = tag(appKey);
        String context = "request-admit for application '" + appKey + "'";
        List<Object> reply = redis.execute(ADMIT, List.of(tag + ":nonce:" + nonce, tag + ":rate", tag + ":epoch"),
                List.of(Long.toString(Math.max(1, nonceTtl.toMillis())), allowed ? "1" : "0",
                        Integer.toString(count), Integer.toString(maxPerSecond), Long.toString(timestampMillis),
                        Long.toString(resetGuard.toMillis())));
        String outcome = ScriptReplies.text(reply, 0, context);
        return switch (outcome) {
            case "OK" -> new Admission(Decision.ADMITTED, Duration.ZERO);
            case "REPLAY" -> new Admission(Decision.REPLAY, Duration.ZERO);
            case "RESET" -> new Admission(Decision.STORE_RESET, Duration.ZERO);
            case "FORBIDDEN" -> new Admission(Decision.FORBIDDEN, Duration.ZERO);
            case "RATE" -> new Admission(Decision.RATE_LIMITED,
                    Duration.ofMillis(Math.max(1, ScriptReplies.number(reply, 1, context))));
            default -> throw new CenterUnavailableException("Redis reply " + ScriptReplies.describe(reply) + " to "
                    + context + " is not one request-admit.lua gives", null);
        };
    }
}
