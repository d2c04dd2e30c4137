package io.github.idworker.test.pool.redis;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.RedisClient;

/** A pool row moved back, over the machine's Redis 7 and MariaDB. */
@Tag("real-services")
class RealServicesIdPoolsRowMovedBackTest extends RedisIdPoolsRowMovedBackTest {

    @Override
    protected PoolRedisHarness createHarness() {
        return new PoolRedisHarness(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                () -> RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT));
    }
}
