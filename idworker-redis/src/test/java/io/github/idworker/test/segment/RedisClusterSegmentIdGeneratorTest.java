package io.github.idworker.test.segment;

import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis segment generator on a 3-master Redis Cluster this test starts on loopback ports: every script's keys
 * share one hash tag, so each call runs on the node owning the tag's slot.
 */
@Tag("real-services")
class RedisClusterSegmentIdGeneratorTest extends RedisSegmentIdGeneratorTest {

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
    protected UnifiedJedis newClient() {
        return cluster.newClient();
    }
}
