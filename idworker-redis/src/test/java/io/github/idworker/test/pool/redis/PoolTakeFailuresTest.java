package io.github.idworker.test.pool.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolSnapshot;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.pool.redis.RedisPoolOptions;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a pool's snapshot says when takes fail (#12 review, F2), over embedded Redis and H2: a take that fails
 * before it reaches the take script (the first check cannot run) and a reply no take can serve from both leave
 * the pool {@code takeFailing}, which the {@code idworkerPools} health reads. Redis is made to fail by a wrapper
 * of the script executor (the SPI), never by a mocked driver.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolTakeFailuresTest {

    private PoolRedisHarness harness;
    private volatile boolean redisDown;
    private volatile List<Object> oddReply;

    @BeforeEach
    void start() {
        harness = new PoolRedisHarness("jdbc:h2:mem:pool-take-failures;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }

    @AfterEach
    void stop() throws Exception {
        harness.close();
    }

    private RedisIdPools node() {
        return harness.newNode(PoolRedisHarness.options().lockTtl(Duration.ofMillis(200)).build(),
                direct -> (script, keys, args) -> {
                    if (redisDown) {
                        throw new CenterUnavailableException("Redis unreachable (test)", null);
                    }
                    if (oddReply != null && script.name().contains("pool-take")) {
                        return oddReply;
                    }
                    return direct.execute(script, keys, args);
                });
    }

    private PoolEntity entity() {
        return harness.entity(b -> b.maxPerRequest(10).maxPerSecond(100_000).step(100).maxPoolSize(1000L)
                .thresholdPercent(50).checkInterval(Duration.ofHours(1)));
    }

    private static PoolSnapshot snapshot(RedisIdPools node, String entity) {
        return node.snapshots().stream().filter(s -> s.entity().equals(entity)).findFirst().orElseThrow();
    }

    @Test
    void takesThatCannotCheckThePoolMakeItTakeFailing() {
        RedisIdPools node = node();
        redisDown = true;
        PoolEntity entity = node.register(entity());
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> node.take(entity.key(), 1)).isInstanceOf(CenterUnavailableException.class);
        }
        assertThat(snapshot(node, entity.key()).takeFailing()).as("takeFailing after three failed takes").isTrue();
    }

    @Test
    void aReplyNoTakeCanServeFromIsAFailure() {
        RedisIdPools node = node();
        PoolEntity entity = node.register(entity());
        // verified and filled: the take script works
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> node.take(entity.key(), 1).length == 1);
        oddReply = List.of("WHAT");
        assertThatThrownBy(() -> node.take(entity.key(), 1)).isInstanceOf(CenterUnavailableException.class);
        assertThat(snapshot(node, entity.key()).takeFailing()).as("takeFailing after an unexpected reply").isTrue();
    }

    /**
     * A node's first take of a pool below its threshold waits for the check against the table, not for the refill
     * that follows: appending many IDs can outlast the take's {@code max-wait} (a CI run saw HTTP 503 on a server's
     * first call while its refill appended a million IDs). Every append on the second node hangs until the end; its
     * two refill threads are soon stuck in them, so the takes of the later pools run the check themselves.
     */
    @Test
    void aFirstTakeWaitsForTheCheckNotForTheRefill() throws Exception {
        RedisIdPools filler = harness.newNode(PoolRedisHarness.options().maxRefill(300).build());
        List<PoolEntity> entities = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            PoolEntity entity = filler.register(harness.entity(b -> b.maxPerRequest(10).maxPerSecond(100_000)
                    .step(100).maxPoolSize(1000L).thresholdPercent(50).checkInterval(Duration.ofHours(1))));
            // one refill of 300 IDs, below the threshold of 500; no other until an hour has passed
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> filler.take(entity.key(), 1).length == 1);
            entities.add(entity);
        }
        filler.close();
        CountDownLatch appendsMayRun = new CountDownLatch(1);
        RedisPoolOptions options = PoolRedisHarness.options().maxWait(Duration.ofMillis(500)).build();
        RedisIdPools node = harness.newNode(options, direct -> (script, keys, args) -> {
            if (script.name().contains("pool-append")) {
                try {
                    appendsMayRun.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return direct.execute(script, keys, args);
        });
        try {
            for (PoolEntity entity : entities) {
                assertThat(node.take(entity.key(), 1)).as("first take of %s on a node whose refills hang",
                        entity.key()).hasSize(1);
            }
        } finally {
            appendsMayRun.countDown();
        }
    }
}
