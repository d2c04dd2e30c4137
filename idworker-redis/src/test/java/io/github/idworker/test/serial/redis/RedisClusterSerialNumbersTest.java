package io.github.idworker.test.serial.redis;

import io.github.idworker.test.RealServices;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Strict serials on a 3-master Redis Cluster this test starts on loopback ports, with MariaDB: every script's
 * keys share the rule's hash tag, so each call runs on the node owning it.
 */
@Tag("real-services")
class RedisClusterSerialNumbersTest extends AbstractRedisSerialNumbersTest {

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
    protected SerialRedisHarness createHarness() {
        return new SerialRedisHarness(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                cluster::newClient);
    }
}
