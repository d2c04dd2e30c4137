package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** Redis sequences over a row moved back, against Redis 7 with ranges from PostgreSQL. */
@Tag("real-services")
class RealRedisSegmentRowMovedBackTest extends RedisSegmentRowMovedBackTest {

    @Override
    protected UnifiedJedis newClient() {
        return RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT);
    }

    @Override
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "");
    }
}
