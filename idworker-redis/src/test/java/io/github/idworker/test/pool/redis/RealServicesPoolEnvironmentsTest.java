package io.github.idworker.test.pool.redis;

import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;

import java.util.concurrent.TimeUnit;

/**
 * Environments 0 and 1 of 2 on real services: one deployment on the machine's Redis 7 and MariaDB, the other on a
 * 3-master Redis Cluster and PostgreSQL; a million IDs each, none in common.
 */
@Tag("real-services")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RealServicesPoolEnvironmentsTest {

    @Test
    void environmentsOnRedis7WithMariaDbAndOnAClusterWithPostgreSqlNeverCollideOverAMillionTakes() throws Exception {
        String key = "p-env-" + System.nanoTime();
        try (RedisClusterSupport cluster = RedisClusterSupport.startCluster();
             PoolRedisHarness e0 = new PoolRedisHarness(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                     () -> RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT));
             PoolRedisHarness e1 = new PoolRedisHarness(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, "",
                     cluster::newClient)) {
            long[] zero = PoolEnvironmentsTest.millionIds(e0, new PoolEnvironment(0, 2), key);
            long[] one = PoolEnvironmentsTest.millionIds(e1, new PoolEnvironment(1, 2), key);
            PoolEnvironmentsTest.assertDisjoint(zero, one);
        }
    }
}
