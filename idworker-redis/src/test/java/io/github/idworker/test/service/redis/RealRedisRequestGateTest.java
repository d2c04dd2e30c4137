package io.github.idworker.test.service.redis;

import io.github.idworker.test.RealServices;
import io.github.idworker.test.redis.RedisTestClients;
import org.junit.jupiter.api.Tag;

/** The request gate on the machine's Redis 7 ({@link RealServices#REDIS_HOST}:{@link RealServices#REDIS_PORT}). */
@Tag("real-services")
class RealRedisRequestGateTest extends AbstractRedisRequestGateTest {

    @Override
    protected RedisRequestGateStore createStore() {
        return new RedisRequestGateStore(() -> RedisTestClients.standalone(RealServices.REDIS_HOST,
                RealServices.REDIS_PORT));
    }
}
