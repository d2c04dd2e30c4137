package io.github.idworker.test.redis;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The Redis centre seen by the contract kit: managers run the real Lua scripts through {@link JedisScriptExecutor};
 * the inspection hooks read and write the namespace's lease hash directly, whose slot fields hold
 * {@code highWater|expires|owner|info}.
 *
 * <p>{@link #stall} pauses the server's writers ({@code CLIENT PAUSE .. WRITE}, Redis 6.2 and later; on a
 * cluster only the node owning the namespace): every lease script waits, reads still answer, and a call fails
 * when the client's socket timeout ({@link RedisTestClients#SOCKET_TIMEOUT}) has passed. It pauses every
 * writer of that server, not only the namespace's.
 */
public class RedisSequenceManagerStore implements SequenceManagerStore {

    /** The key prefix of the stores the factories make. */
    public static final String TEST_PREFIX = "idworker-test";

    /** Longest a stall lasts if its handle is never closed, so a failed test cannot leave Redis paused. */
    private static final Duration MAX_STALL = Duration.ofSeconds(30);

    /** How long ago an aged namespace was created. */
    private static final Duration AGED_BY = Duration.ofMinutes(10);

    private final UnifiedJedis jedis;
    private final String keyPrefix;
    private final boolean closeClient;
    private final RedisSequenceManager keys;

    /**
     * @param jedis client of the Redis under test
     * @param keyPrefix prefix of every key, e.g. {@code idworker-test}
     * @param closeClient whether {@link #close()} closes {@code jedis}
     */
    public RedisSequenceManagerStore(UnifiedJedis jedis, String keyPrefix, boolean closeClient) {
        this.jedis = jedis;
        this.keyPrefix = keyPrefix;
        this.closeClient = closeClient;
        this.keys = new RedisSequenceManager(new JedisScriptExecutor(jedis), keyPrefix);
    }

    /** A store over the embedded Redis of this JVM, under the key prefix {@code idworker-test}. */
    public static RedisSequenceManagerStore embedded() {
        return new RedisSequenceManagerStore(EmbeddedRedisSupport.newClient(), TEST_PREFIX, true);
    }

    /** A store over the real Redis of the real-services profile, under the key prefix {@code idworker-test}. */
    public static RedisSequenceManagerStore realRedis() {
        return new RedisSequenceManagerStore(
                RedisTestClients.standalone(RealServices.REDIS_HOST, RealServices.REDIS_PORT), TEST_PREFIX, true);
    }

    public UnifiedJedis jedis() {
        return jedis;
    }

    /** The hash holding all lease data of {@code namespace}. */
    public String leaseKey(String namespace) {
        return keys.leaseKey(namespace);
    }

    /** The stored record of one slot, or {@code null} when there is none. */
    public SlotRecord slotRecord(String namespace, int workerId) {
        String value = jedis.hget(leaseKey(namespace), Integer.toString(workerId));
        return value == null ? null : SlotRecord.parse(value);
    }

    @Override
    public RedisSequenceManager newManager() {
        return new RedisSequenceManager(new JedisScriptExecutor(jedis), keyPrefix);
    }

    @Override
    public void expireLease(String namespace, int workerId) {
        SlotRecord r = slotRecord(namespace, workerId);
        if (r != null) {
            jedis.hset(leaseKey(namespace), Integer.toString(workerId),
                    new SlotRecord(r.highWater(), 0, r.owner(), r.info()).format());
        }
    }

    @Override
    public long storedHighWater(String namespace, int workerId) {
        SlotRecord r = slotRecord(namespace, workerId);
        return r == null ? -1 : r.highWater();
    }

    @Override
    public String storedOwner(String namespace, int workerId) {
        SlotRecord r = slotRecord(namespace, workerId);
        return r == null || r.owner().isEmpty() ? null : r.owner();
    }

    @Override
    public long centreNowMillis() {
        Object time = jedis.eval("local t = redis.call('TIME') return {t[1], t[2]}", 1, leaseKey("clock"));
        List<?> parts = (List<?>) time;
        return Long.parseLong(text(parts.get(0))) * 1000 + Long.parseLong(text(parts.get(1))) / 1000;
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    /**
     * Writes, in one script on the node that owns the namespace, the generation marker the first borrow would have
     * written ten minutes ago by the Redis clock: this server's identity, the generation's start {@code ms}, its
     * floor {@code ms + ttl + maxSkew} and guard, the layout, no slots yet.
     */
    @Override
    public void createAgedNamespace(String namespace, int slotCount, String layout, Duration ttl, Duration maxSkew) {
        String script = """
                local info = redis.call('INFO', 'replication')
                local i = string.find(info, 'master_replid:', 1, true)
                local j = string.find(info, '\\r', i, true)
                local run_id = string.sub(info, i + 14, j - 1)
                local t = redis.call('TIME')
                local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[3])
                local guard = tonumber(ARGV[2])
                redis.call('HSET', KEYS[1], 'id', 'aged-' .. string.format('%.0f', ms), 'run_id', run_id,
                    'floor', string.format('%.0f', ms + guard), 'guard', ARGV[2], 'ms', string.format('%.0f', ms),
                    'layout', ARGV[1], 'slots_created', '0')
                return 1
                """;
        if (!jedis.exists(leaseKey(namespace))) {
            jedis.eval("if redis.replicate_commands then pcall(redis.replicate_commands) end\n" + script,
                    List.of(leaseKey(namespace)), List.of(layout, Long.toString(ttl.toMillis() + maxSkew.toMillis()),
                            Long.toString(AGED_BY.toMillis())));
        }
    }

    @Override
    public void deleteSlotRecord(String namespace, int workerId) {
        jedis.hdel(leaseKey(namespace), Integer.toString(workerId));
    }

    @Override
    public AutoCloseable stall(String namespace, int workerId) {
        String key = leaseKey(namespace);
        jedis.sendCommand(key, Protocol.Command.CLIENT, "PAUSE", Long.toString(MAX_STALL.toMillis()), "WRITE");
        return () -> jedis.sendCommand(key, Protocol.Command.CLIENT, "UNPAUSE");
    }

    @Override
    public void deleteNamespace(String namespace) {
        jedis.del(leaseKey(namespace));
    }

    @Override
    public void close() {
        if (closeClient) {
            jedis.close();
        }
    }

    /** One slot's field of the lease hash, {@code highWater|expires|owner|info}; the owner is empty while free. */
    public record SlotRecord(long highWater, long expires, String owner, String info) {

        static SlotRecord parse(String value) {
            String[] parts = value.split("\\|", 4);
            if (parts.length != 4) {
                throw new IllegalStateException("not a slot record: '" + value + "'");
            }
            return new SlotRecord(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2], parts[3]);
        }

        String format() {
            return highWater + "|" + expires + "|" + owner + "|" + info;
        }
    }
}
