package io.github.idworker.test.service.redis;

import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.redis.RedisTestClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import io.github.idworker.redis.JedisScriptExecutor;

import static org.assertj.core.api.Assertions.assertThat;

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

    /** A signed pool call stays two calls here: the application's keys and the pool's live on different slots. */
    @Test
    void aClusterClientSharesNoServerSoSignedTakesStayTwoCalls() {
        try (UnifiedJedis client = RedisTestClients.cluster(cluster.nodes())) {
            JedisScriptExecutor executor = new JedisScriptExecutor(client);
            assertThat(executor.sharesOneServerWith(executor)).isFalse();
        }
    }

    @Override
    protected RedisRequestGateStore createStore() {
        return new RedisRequestGateStore(() -> RedisTestClients.cluster(cluster.nodes()));
    }
}
