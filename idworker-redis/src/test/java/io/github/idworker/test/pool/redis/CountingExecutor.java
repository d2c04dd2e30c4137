package io.github.idworker.test.pool.redis;

import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the script calls made through it; it declares that it shares one server with itself only, as a test may
 * declare of its Redis (or as a client behind a sharding proxy cannot tell otherwise).
 */
final class CountingExecutor implements RedisScriptExecutor {
    final RedisScriptExecutor inner;
    final AtomicInteger calls = new AtomicInteger();

    CountingExecutor(RedisScriptExecutor inner) {
        this.inner = inner;
    }

    @Override
    public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
        calls.incrementAndGet();
        return inner.execute(script, keys, args);
    }

    @Override
    public boolean sharesOneServerWith(RedisScriptExecutor other) {
        return other == this;
    }
}
