package io.github.idworker.test.fault;

import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

import java.util.List;
import java.util.stream.Collectors;

/** The fault tests over a 3-master Redis Cluster started on loopback ports. */
@Tag("real-services")
class RedisClusterFaultInjectionTest extends AbstractFaultInjectionTest {

    private static RedisClusterSupport cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisClusterSupport.startCluster();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected List<String> centreArgs() {
        return List.of("centre=redis-cluster", "url=" + cluster.nodes().stream()
                .map(n -> n.getHost() + ":" + n.getPort()).collect(Collectors.joining(",")));
    }

    @Override
    protected int rate() {
        return 150_000;
    }

    @Override
    protected long minTotalIds() {
        return 600_000;
    }

    @Override
    protected void deleteNamespace(String namespace) {
        // the cluster goes away after the class
    }
}
