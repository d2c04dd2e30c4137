package io.github.idworker.test.service.redis;

import io.github.idworker.service.RequestGate;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A deliberately broken gate: it asks whether a nonce is known ({@code GET}) and records it ({@code SET}) in two
 * round trips, so two callers can both find it unknown. It exists to show that
 * {@link io.github.idworker.test.service.AbstractRequestGateTest#assertEachNonceAdmittedOnce} catches a gate
 * that is not atomic. It counts no rate and ignores the reset guard.
 */
final class GetThenSetRequestGate implements RequestGate {

    private final UnifiedJedis jedis;
    private final String prefix;
    private final Consumer<String> touched;

    GetThenSetRequestGate(UnifiedJedis jedis, String prefix, Consumer<String> touched) {
        this.jedis = jedis;
        this.prefix = prefix;
        this.touched = touched;
    }

    @Override
    public Admission admit(String appKey, String nonce, long timestampMillis, Duration nonceTtl,
                           Duration resetGuard, boolean allowed, int count, int maxPerSecond) {
        String key = "{" + prefix + ":app:" + appKey + "}:nonce:" + nonce;
        touched.accept(key);
        if (jedis.get(key) != null) {
            return new Admission(Decision.REPLAY, Duration.ZERO);
        }
        // a millisecond between the two round trips: on a busy two-core machine the racing threads could otherwise
        // run one after the other (one run admitted all 200 nonces through one gate and none twice), and this
        // control must show the race every time
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        jedis.set(key, "1", SetParams.setParams().px(nonceTtl.toMillis()));
        return new Admission(allowed ? Decision.ADMITTED : Decision.FORBIDDEN, Duration.ZERO);
    }
}
