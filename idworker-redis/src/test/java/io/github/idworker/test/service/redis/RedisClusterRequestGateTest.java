package io.github.idworker.test.service.redis;

import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.redis.RedisTestClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The request gate on a 3-master Redis Cluster this test starts on loopback ports: both keys of a call share the
 * application's hash tag, so every call runs on the node owning it.
 */
@Tag("real-services")
class RedisClusterRequestGateTest extends AbstractRedisRequestGateTest {

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
    protected RedisRequestGateStore createStore() {
        return new RedisRequestGateStore(() -> RedisTestClients.cluster(cluster.nodes()));
    }
}
