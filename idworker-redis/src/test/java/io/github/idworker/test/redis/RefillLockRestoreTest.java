package io.github.idworker.test.redis;

import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RefillLock;
import io.github.idworker.redis.ScriptReplies;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refill lock across a restart that loads an older snapshot (the model's finding in docs/models/README.md): a
 * refiller takes the lock, a snapshot saves it, Redis restarts from that snapshot within the lock's ttl and brings
 * the lock key back. Meanwhile another node may have refilled and handed out higher numbers (after a loss in between
 * that the snapshot hides), so the old holder's reservation may lie below them: its install must be refused (a gap),
 * never accepted behind newer numbers. A lock taken after the restart installs as always.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RefillLockRestoreTest {

    private static final LuaScript SEGMENT_INSTALL = LuaScript.load(RedisSegmentIdGenerator.class, "segment-install");
    private static final LuaScript SERIAL_INSTALL = LuaScript.load(RedisSerialNumbers.class, "serial-install");
    private static final LuaScript POOL_APPEND = LuaScript.load(RedisIdPools.class, "pool-append");
    /** Far longer than a restart on a loaded machine: the lock must still live when the snapshot is loaded. */
    private static final Duration TTL = Duration.ofSeconds(60);

    private PrivateRedisServer server;
    private String tag;
    private List<String> lock;

    @BeforeEach
    void start() throws Exception {
        server = PrivateRedisServer.start(List.of());
        tag = "{lock-restore-" + UUID.randomUUID() + "}";
        lock = List.of(tag + ":lock");
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aSegmentRangeReservedUnderALockASnapshotBroughtBackIsNotInstalled() throws Exception {
        List<String> keys = List.of(tag + ":range", tag + ":lock");
        String token = lockedBeforeARestartFromSnapshot();
        try (UnifiedJedis jedis = server.newClient()) {
            RedisScriptExecutor redis = new JedisScriptExecutor(jedis);
            assertThat(text(redis.execute(SEGMENT_INSTALL, keys, List.of(token, "2", "4", "2", "current"))))
                    .as("the old holder's install").isEqualTo("NOT_OWNER");
            assertThat(jedis.exists(tag + ":range")).as("nothing installed").isFalse();
            String next = takeAfterTheRestoredLock(redis);
            assertThat(release(redis, token)).as("the old holder's release leaves the new lock").isZero();
            assertThat(ScriptReplies.describe(redis.execute(SEGMENT_INSTALL, keys,
                    List.of(next, "6", "8", "2", "current")))).contains("OK", "CURRENT");
            assertThat(jedis.hget(tag + ":range", "v_l")).isEqualTo("6");
            assertThat(release(redis, next)).isEqualTo(1);
        }
    }

    @Test
    void aSerialRangeReservedUnderALockASnapshotBroughtBackIsNotInstalled() throws Exception {
        List<String> keys = List.of(tag + ":stock", tag + ":lock");
        String token = lockedBeforeARestartFromSnapshot();
        try (UnifiedJedis jedis = server.newClient()) {
            RedisScriptExecutor redis = new JedisScriptExecutor(jedis);
            assertThat(text(redis.execute(SERIAL_INSTALL, keys, List.of(token, "3", "4", "0"))))
                    .as("the old holder's install").isEqualTo("NOT_OWNER");
            assertThat(jedis.exists(tag + ":stock")).as("nothing installed").isFalse();
            String next = takeAfterTheRestoredLock(redis);
            assertThat(release(redis, token)).as("the old holder's release leaves the new lock").isZero();
            assertThat(text(redis.execute(SERIAL_INSTALL, keys, List.of(next, "7", "8", "0")))).isEqualTo("REPLACED");
            assertThat(jedis.hget(tag + ":stock", "hi")).isEqualTo("8");
            assertThat(release(redis, next)).isEqualTo(1);
        }
    }

    /**
     * The pool's old holder goes the way of {@code PoolRefiller.seed}: its first seed finds the pool stamped by the
     * older identity (RESET stamps it anew), its second would seed the high-water right below its old reservation,
     * and its append would then pass the high-water check.
     */
    @Test
    void aPoolChunkReservedUnderALockASnapshotBroughtBackIsNotAppended() throws Exception {
        List<String> keys = List.of(tag + ":ids", tag + ":meta", tag + ":lock");
        String token = lockedBeforeARestartFromSnapshot();
        try (UnifiedJedis jedis = server.newClient()) {
            RedisScriptExecutor redis = new JedisScriptExecutor(jedis);
            assertThat(text(redis.execute(POOL_APPEND, keys, List.of(token, "SEED", "0", "2", "2", "0/1"))))
                    .as("the first seed stamps the pool").isEqualTo("RESET");
            assertThat(text(redis.execute(POOL_APPEND, keys, List.of(token, "SEED", "0", "2", "2", "0/1"))))
                    .as("the old holder's seed").isEqualTo("LOCK");
            assertThat(text(redis.execute(POOL_APPEND, keys, List.of(token, "APPEND", "100", "3", "4", "0/1", "3",
                    "4")))).as("the old holder's append").isEqualTo("LOCK");
            assertThat(jedis.exists(tag + ":ids")).as("nothing appended").isFalse();
            assertThat(jedis.hget(tag + ":meta", "hw")).as("nothing seeded").isNull();
            String next = takeAfterTheRestoredLock(redis);
            assertThat(release(redis, token)).as("the old holder's release leaves the new lock").isZero();
            assertThat(text(redis.execute(POOL_APPEND, keys, List.of(next, "SEED", "0", "6", "6", "0/1"))))
                    .isEqualTo("OK");
            assertThat(ScriptReplies.describe(redis.execute(POOL_APPEND, keys, List.of(next, "APPEND", "100", "7",
                    "8", "0/1", "7", "8")))).contains("OK", "2");
            assertThat(jedis.lrange(tag + ":ids", 0, -1)).containsExactly("7", "8");
            assertThat(release(redis, next)).isEqualTo(1);
        }
    }

    /**
     * Takes the lock, then {@code SAVE}, a crash, a start that loads the snapshot: the lock key is back, the
     * identity is new.
     *
     * @return the token of the lock taken before the restart
     */
    private String lockedBeforeARestartFromSnapshot() throws Exception {
        String token;
        String before;
        try (UnifiedJedis jedis = server.newClient()) {
            token = RefillLock.tryAcquire(new JedisScriptExecutor(jedis), lock, TTL, "test");
            assertThat(token).as("the lock taken").isNotNull();
            before = identity(jedis);
            jedis.sendCommand(Protocol.Command.SAVE);
        }
        server.kill();
        server.startAgain();
        try (UnifiedJedis jedis = server.newClient()) {
            assertThat(jedis.exists(lock.get(0))).as("the snapshot brought the lock back").isTrue();
            assertThat(identity(jedis)).as("a new identity").isNotEqualTo(before);
        }
        return token;
    }

    /** The restored lock, stamped with the older identity, guards nothing: the next refill replaces it at once. */
    private String takeAfterTheRestoredLock(RedisScriptExecutor redis) {
        String token = RefillLock.tryAcquire(redis, lock, TTL, "test");
        assertThat(token).as("the restored lock is replaced").isNotNull();
        return token;
    }

    @Test
    void aRestoredLockIsStillItsHoldersToReleaseAndAnUnstampedOneIsLeftAlone() throws Exception {
        String token = lockedBeforeARestartFromSnapshot();
        try (UnifiedJedis jedis = server.newClient()) {
            RedisScriptExecutor redis = new JedisScriptExecutor(jedis);
            assertThat(release(redis, token)).as("the holder deletes its restored lock").isEqualTo(1);
            assertThat(jedis.exists(lock.get(0))).isFalse();
            // an older version's lock holds the bare token: it cannot be told stale, so it is waited for
            jedis.psetex(lock.get(0), TTL.toMillis(), "older-version-token");
            assertThat(RefillLock.tryAcquire(redis, lock, TTL, "test")).isNull();
            assertThat(jedis.get(lock.get(0))).isEqualTo("older-version-token");
        }
    }

    private long release(RedisScriptExecutor redis, String token) {
        return ScriptReplies.number(redis.execute(RefillLock.RELEASE, lock, List.of(token)), 0, "lock-release");
    }

    private static String text(List<Object> reply) {
        return ScriptReplies.text(reply, 0, "test");
    }

    private static String identity(UnifiedJedis jedis) {
        String info = jedis.info("replication");
        int i = info.indexOf("master_replid:") + "master_replid:".length();
        return info.substring(i, info.indexOf('\r', i));
    }
}
