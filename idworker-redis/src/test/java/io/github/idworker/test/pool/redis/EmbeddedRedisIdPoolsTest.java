package io.github.idworker.test.pool.redis;

import io.github.idworker.test.redis.EmbeddedRedisSupport;

/** ID pools over embedded Redis and H2 in MySQL mode: the default build's run of the suite. */
class EmbeddedRedisIdPoolsTest extends AbstractRedisIdPoolsTest {

    @Override
    protected PoolRedisHarness createHarness() {
        return new PoolRedisHarness("jdbc:h2:mem:pool-redis;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }
}
