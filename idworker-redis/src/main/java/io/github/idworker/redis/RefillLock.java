package io.github.idworker.redis;

import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The refill lock every Redis store shares: {@code SET NX PX} with a random owner token, released by
 * compare-and-delete, so a holder whose lock expired never frees its successor's. The lock only keeps refills from
 * doing the same work twice; what makes a late holder harmless is that the scripts writing under it check the token
 * (and the store's high-water) in the same atomic call. The lock holds the token stamped with the Redis identity
 * that granted it ({@code <token>|<master_replid>}), and every script accepts it only under the identity current
 * when it runs: a lock that a restart from a snapshot brought back belongs to nobody, so its holder, which may have
 * reserved before a data loss that came in between, cannot install behind newer numbers, and the next acquire
 * replaces it rather than waiting for it to expire. A release compares the token alone.
 */
public final class RefillLock {

    /** {@code lock-acquire.lua}: KEYS[1] the lock, ARGV token and ttl in ms; replies 1 when taken. */
    public static final LuaScript ACQUIRE = LuaScript.load(RefillLock.class, "lock-acquire");
    /** {@code lock-release.lua}: KEYS[1] the lock, ARGV token; replies 1 when released. */
    public static final LuaScript RELEASE = LuaScript.load(RefillLock.class, "lock-release");

    private static final Logger log = LoggerFactory.getLogger(RefillLock.class);

    private RefillLock() {
    }

    /**
     * @param lockKey the lock's key, alone in a list (it shares the hash tag of what it guards)
     * @param context what the lock guards, for messages
     * @return the owner token when taken, {@code null} when another owner holds the lock
     */
    public static @Nullable String tryAcquire(RedisScriptExecutor executor, List<String> lockKey, Duration ttl,
                                              String context) {
        String token = UUID.randomUUID().toString();
        long taken = ScriptReplies.number(executor.execute(ACQUIRE, lockKey,
                List.of(token, Long.toString(ttl.toMillis()))), 0, "the refill lock of " + context);
        return taken == 1 ? token : null;
    }

    /**
     * Releases the lock if {@code token} still owns it. A failure to reach Redis is logged at DEBUG and not thrown:
     * the lock expires by itself, and a release in a {@code finally} must not hide the failure that led there.
     */
    public static void release(RedisScriptExecutor executor, List<String> lockKey, String token, String context) {
        try {
            executor.execute(RELEASE, lockKey, List.of(token));
        } catch (RuntimeException e) {
            log.debug("Could not release the refill lock of {}; it expires by itself: {}", context,
                    StoreLocations.redact(e.toString()));
        }
    }
}
