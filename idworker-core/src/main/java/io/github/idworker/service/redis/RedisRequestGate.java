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
 * admitted, whichever instances they reach; the rate counts IDs per second of the Redis clock, so every instance
 * counts against the same second.
 *
 * <p>Keys, under the hash tag of the application so both of one call sit on one Redis Cluster slot:
 * {@code {<prefix>:app:<appKey>}:nonce:<nonce>} (a string, expiring when the call's timestamp can no longer
 * pass) and {@code {<prefix>:app:<appKey>}:rate} (a hash, expiring 10 s after its second). A Redis that loses
 * these keys forgets nonces still inside their window: a call recorded before the loss could be replayed once
 * until its timestamp leaves the window — the service hands out fresh IDs to it, never IDs handed out before.
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
    public Admission admit(String appKey, String nonce, Duration nonceTtl, boolean allowed, int count,
                           int maxPerSecond) {
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
        String tag = tag(appKey);
        String context = "request-admit for application '" + appKey + "'";
        List<Object> reply = redis.execute(ADMIT, List.of(tag + ":nonce:" + nonce, tag + ":rate"),
                List.of(Long.toString(Math.max(1, nonceTtl.toMillis())), allowed ? "1" : "0",
                        Integer.toString(count), Integer.toString(maxPerSecond)));
        String outcome = ScriptReplies.text(reply, 0, context);
        return switch (outcome) {
            case "OK" -> new Admission(Decision.ADMITTED, Duration.ZERO);
            case "REPLAY" -> new Admission(Decision.REPLAY, Duration.ZERO);
            case "FORBIDDEN" -> new Admission(Decision.FORBIDDEN, Duration.ZERO);
            case "RATE" -> new Admission(Decision.RATE_LIMITED,
                    Duration.ofMillis(Math.max(1, ScriptReplies.number(reply, 1, context))));
            default -> throw new CenterUnavailableException("Redis reply " + ScriptReplies.describe(reply) + " to "
                    + context + " is not one request-admit.lua gives", null);
        };
    }
}
