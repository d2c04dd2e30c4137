package io.github.idworker.test.pool.redis;

import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.service.RequestGate.AdmittedTake;
import io.github.idworker.service.RequestGate.Decision;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.redis.RedisTestClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A signed pool call through one address that is no single server: a Redis Cluster node that holds every slot,
 * reached by a plain client, refuses keys of two hash tags ({@code CROSSSLOT}) as a sharding proxy (twemproxy,
 * Envoy, a clustered managed endpoint) does, while it serves every call of one hash tag. The one-call take must
 * then fall back to the gate's call and the pool's call, for that call and every later one, with nothing recorded
 * or taken by the refused call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardingProxyTakeTest {

    private static final Duration TTL = Duration.ofMinutes(6);

    private Path dir;
    private Process server;
    private PoolRedisHarness harness;
    private CountingExecutor executor;
    private RedisIdPools pools;
    private String app;

    @BeforeEach
    void start() throws IOException {
        dir = Files.createTempDirectory("idworker-proxy-");
        int port = RedisClusterSupport.freePort();
        server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir,
                List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf"));
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            jedis.clusterAddSlots(IntStream.range(0, 16384).toArray());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!jedis.clusterInfo().contains("cluster_state:ok")) {
                assertThat(System.nanoTime()).as("cluster_state:ok within 20 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
        harness = new PoolRedisHarness("jdbc:h2:mem:proxy-take-" + port + ";MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                () -> RedisTestClients.standalone("127.0.0.1", port));
        pools = harness.newNode(PoolRedisHarness.options().build(), direct -> {
            executor = new CountingExecutor(direct);
            return executor;
        });
        app = "app-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void stop() throws InterruptedException {
        try {
            harness.close();
        } finally {
            RedisClusterSupport.kill(server);
            RedisClusterSupport.deleteRecursively(dir);
        }
    }

    private AdmittedTake take(RedisRequestGate gate, String nonce, String entity, int count) {
        return gate.admitAndTake(app, nonce, System.currentTimeMillis() + TTL.toMillis(), TTL, Duration.ZERO, true,
                1000, pools, entity, count);
    }

    @Test
    void aRefusedOneCallTakeFallsBackToTwoCallsForGood() {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(50).maxPerSecond(100_000).step(100)
                .maxPoolSize(200L).thresholdPercent(1).checkInterval(Duration.ofHours(1)));
        pools.register(entity);
        pools.checkNow(entity.key());
        assertThat(pools.take(entity.key(), 1)).as("a take of one hash tag is served").hasSize(1);
        long level = harness.level(entity.key());
        RedisRequestGate gate = new RedisRequestGate(executor, PoolRedisHarness.PREFIX);

        int before = executor.calls.get();
        String nonce = UUID.randomUUID().toString();
        AdmittedTake first = take(gate, nonce, entity.key(), 3);
        assertThat(first.admission().decision()).isEqualTo(Decision.ADMITTED);
        assertThat(first.ids()).hasSize(3).doesNotHaveDuplicates();
        assertThat(executor.calls.get() - before).as("the refused one-call take, then the gate's and the pool's call")
                .isEqualTo(3);
        assertThat(harness.level(entity.key())).as("the refused call popped nothing").isEqualTo(level - 3);
        assertThat(take(gate, nonce, entity.key(), 3).admission().decision())
                .as("the nonce was recorded once, by the gate's own call").isEqualTo(Decision.REPLAY);

        before = executor.calls.get();
        AdmittedTake second = take(gate, UUID.randomUUID().toString(), entity.key(), 2);
        assertThat(second.ids()).hasSize(2).doesNotContain(first.ids());
        assertThat(executor.calls.get() - before).as("two calls from then on, no new try of one").isEqualTo(2);
    }
}
