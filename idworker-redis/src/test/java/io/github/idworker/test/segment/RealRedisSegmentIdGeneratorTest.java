package io.github.idworker.test.segment;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** The Redis segment generator against Redis 7, with ranges from MariaDB. */
@Tag("real-services")
class RealRedisSegmentIdGeneratorTest extends RedisSegmentIdGeneratorTest {

    @Override
    protected UnifiedJedis newClient() {
        return RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT);
    }

    @Override
    protected JdbcSegmentAllocatorStore createStore() {
        return new JdbcSegmentAllocatorStore(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
    }
}
