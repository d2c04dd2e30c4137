package io.github.idworker.test.redis;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisSequenceManager;
import io.github.idworker.test.SequenceManagerStore;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis centre seen by the contract kit: managers run the real Lua scripts through {@link JedisScriptExecutor};
 * the inspection hooks read and write the same hashes directly.
 */
public class RedisSequenceManagerStore implements SequenceManagerStore {

    /** The parts of a namespace's records, as {@link RedisSequenceManager#keyOf} names them. */
    static final String[] PARTS = {"gen", "owner", "expires", "hw", "info"};

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

    public UnifiedJedis jedis() {
        return jedis;
    }

    /** The Redis key of one part of a namespace's records. */
    public String keyOf(String namespace, String part) {
        return keys.keyOf(namespace, part);
    }

    @Override
    public RedisSequenceManager newManager() {
        return new RedisSequenceManager(new JedisScriptExecutor(jedis), keyPrefix);
    }

    @Override
    public void expireLease(String namespace, int workerId) {
        jedis.hset(keyOf(namespace, "expires"), Integer.toString(workerId), "0");
    }

    @Override
    public long storedHighWater(String namespace, int workerId) {
        String hw = jedis.hget(keyOf(namespace, "hw"), Integer.toString(workerId));
        return hw == null ? -1 : Long.parseLong(hw);
    }

    @Override
    public String storedOwner(String namespace, int workerId) {
        return jedis.hget(keyOf(namespace, "owner"), Integer.toString(workerId));
    }

    @Override
    public void deleteNamespace(String namespace) {
        String[] all = new String[PARTS.length];
        for (int i = 0; i < PARTS.length; i++) {
            all[i] = keyOf(namespace, PARTS[i]);
        }
        jedis.del(all);
    }

    @Override
    public void close() {
        if (closeClient) {
            jedis.close();
        }
    }
}
