package io.github.idworker.test.service.redis;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.service.RequestGate;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.test.service.RequestGateStore;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Request gates over one Redis (a server or a cluster) under a key prefix of their own
 * ({@code idworker-test-<random>}): each gate has its own client and script executor, as another instance of the
 * service would. Every key a gate's script touches is recorded; {@link #close()} deletes them and fails if one
 * is left.
 */
public final class RedisRequestGateStore implements RequestGateStore {

    final String prefix = "idworker-test-" + UUID.randomUUID().toString().substring(0, 8);
    private final Supplier<UnifiedJedis> newClient;
    private final UnifiedJedis admin;
    private final List<UnifiedJedis> clients = new ArrayList<>();
    private final Set<String> touchedKeys = ConcurrentHashMap.newKeySet();

    public RedisRequestGateStore(Supplier<UnifiedJedis> newClient) {
        this.newClient = newClient;
        this.admin = newClient.get();
    }

    /** A client of its own, closed with the store. */
    UnifiedJedis newClient() {
        UnifiedJedis jedis = newClient.get();
        synchronized (clients) {
            clients.add(jedis);
        }
        return jedis;
    }

    @Override
    public RedisRequestGate newGate() {
        RedisScriptExecutor direct = new JedisScriptExecutor(newClient());
        return new RedisRequestGate((script, keys, args) -> {
            touchedKeys.addAll(keys);
            return direct.execute(script, keys, args);
        }, prefix);
    }

    /** A gate that checks and records a nonce in two steps (GET, then SET): broken on purpose. */
    RequestGate newGetThenSetGate() {
        return new GetThenSetRequestGate(newClient(), prefix, touchedKeys::add);
    }

    /** The client tests inspect Redis with. */
    public UnifiedJedis admin() {
        return admin;
    }

    @Override
    public void close() {
        try {
            List<String> keys = List.copyOf(touchedKeys);
            keys.forEach(admin::del);
            List<String> left = keys.stream().filter(admin::exists).toList();
            if (!left.isEmpty()) {
                throw new AssertionError("keys left in Redis: " + left);
            }
        } finally {
            synchronized (clients) {
                clients.forEach(UnifiedJedis::close);
            }
            admin.close();
        }
    }
}
