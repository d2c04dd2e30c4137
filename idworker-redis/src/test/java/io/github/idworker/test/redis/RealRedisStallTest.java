package io.github.idworker.test.redis;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/**
 * {@link RedisStallTest} on a real Redis 7 ({@link RealServices#REDIS_HOST}:{@link RealServices#REDIS_PORT}),
 * where a script without flags is held by {@code CLIENT PAUSE WRITE} too. Runs with {@code mvn -Preal-services};
 * pauses that server's writers for about five seconds.
 */
@Tag("real-services")
class RealRedisStallTest extends RedisStallTest {

    @Override
    protected RedisSequenceManagerStore createStore() {
        return RedisSequenceManagerStore.realRedis();
    }
}
