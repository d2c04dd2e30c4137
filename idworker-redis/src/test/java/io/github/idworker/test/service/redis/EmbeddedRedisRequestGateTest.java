package io.github.idworker.test.service.redis;

import io.github.idworker.test.redis.EmbeddedRedisSupport;

/** The request gate on the embedded Redis: the default build's run of the contract. */
class EmbeddedRedisRequestGateTest extends AbstractRedisRequestGateTest {

    @Override
    protected RedisRequestGateStore createStore() {
        return new RedisRequestGateStore(EmbeddedRedisSupport::newClient);
    }
}
