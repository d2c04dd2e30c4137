package io.github.idworker.server;

import io.github.idworker.test.RealServices;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.test.redis.RedisClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import redis.clients.jedis.UnifiedJedis;

import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample in profile {@code external}, configured only through Spring's {@code spring.data.redis.cluster.nodes}
 * (and the real MariaDB as its {@code spring.datasource.url}), on a 3-master Redis Cluster this test starts on
 * loopback ports: two instances lease distinct worker ids, issue unique ids from four threads each, and give their
 * leases back when their contexts close.
 */
@Tag("real-services")
class RedisClusterSampleTest {

    private static RedisClusterSupport cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisClusterSupport.startCluster();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private static ConfigurableApplicationContext instance(String namespace) {
        String nodes = cluster.nodes().stream().map(n -> n.getHost() + ":" + n.getPort()).collect(Collectors.joining(","));
        return new SpringApplicationBuilder(IdWorkerServerApplication.class)
                .profiles("external")
                // as command-line arguments: they must win over the profile's own files
                .run("--spring.data.redis.cluster.nodes=" + nodes,
                        // segments keep their numbers in the database every instance shares
                        "--spring.datasource.url=" + RealServices.MARIADB_URL,
                        "--spring.datasource.username=" + RealServices.MARIADB_USER,
                        "--idworker.segment.initialize-schema=always",
                        "--idworker.serial.initialize-schema=always", "--idworker.pool.initialize-schema=always",
                        "--idworker.service.initialize-schema=always",
                        "--server.port=0",
                        "--idworker.namespace=" + namespace,
                        "--idworker.lease.ttl=2s", "--idworker.lease.loss-guard=3s");
    }

    @Test
    void twoInstancesOnTheClusterIssueUniqueIdsAndReturnTheirLeases() throws Exception {
        String namespace = "cluster-" + UUID.randomUUID().toString().substring(0, 8);
        long[] ids;
        int workerA;
        int workerB;
        try (ConfigurableApplicationContext a = instance(namespace); ConfigurableApplicationContext b = instance(namespace)) {
            RedisIdWorker wa = a.getBean(RedisIdWorker.class);
            RedisIdWorker wb = b.getBean(RedisIdWorker.class);
            workerA = wa.currentLease().workerId();
            workerB = wb.currentLease().workerId();
            assertThat(workerA).isNotEqualTo(workerB);

            ExecutorService exec = Executors.newFixedThreadPool(8);
            Future<?>[] parts = new Future<?>[8];
            long[][] results = new long[8][];
            for (int t = 0; t < 8; t++) {
                RedisIdWorker w = t % 2 == 0 ? wa : wb;
                int slot = t;
                parts[t] = exec.submit(() -> results[slot] = w.nextIds(50_000));
            }
            for (Future<?> f : parts) {
                f.get(2, TimeUnit.MINUTES);
            }
            exec.shutdown();
            ids = Arrays.stream(results).flatMapToLong(Arrays::stream).toArray();
        }
        assertThat(ids).hasSize(400_000);
        assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(400_000);

        // the contexts are closed: both worker ids were given back on the cluster
        try (UnifiedJedis jedis = cluster.newClient()) {
            // a slot's record in the namespace's lease hash: highWater|expires|owner|info, owner empty once returned
            String lease = "{idworker:" + namespace + "}:lease";
            assertThat(jedis.hget(lease, Integer.toString(workerA)).split("\\|")[2]).isEmpty();
            assertThat(jedis.hget(lease, Integer.toString(workerB)).split("\\|")[2]).isEmpty();
        }
    }
}
