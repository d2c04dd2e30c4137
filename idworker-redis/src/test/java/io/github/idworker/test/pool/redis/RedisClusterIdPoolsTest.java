package io.github.idworker.test.pool.redis;

import io.github.idworker.test.RealServices;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * ID pools on a 3-master Redis Cluster this test starts on loopback ports, with MariaDB: every script's keys share
 * the entity's hash tag, so each call runs on the node owning it.
 */
@Tag("real-services")
class RedisClusterIdPoolsTest extends AbstractRedisIdPoolsTest {

    private static RedisClusterSupport cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisClusterSupport.startCluster();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected PoolRedisHarness createHarness() {
        return new PoolRedisHarness(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "", cluster::newClient);
    }
}
