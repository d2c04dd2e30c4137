package io.github.idworker.test.pool.redis;

import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.service.RequestGate.AdmittedTake;
import io.github.idworker.service.RequestGate.Decision;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A signed pool call on one Redis (embedded, H2 for the pool table): {@link RedisRequestGate#admitAndTake} over a
 * {@link io.github.idworker.pool.redis.RedisIdPools} sharing the gate's server is one script call
 * ({@code request-admit-take.lua}), counted at the executor (the SPI), and it keeps the two calls' guarantees: the
 * nonce is recorded whenever the call was authentic, IDs are taken only for an admitted call, a refused call
 * counts nothing against the application or the pool, and a nonce of either path is a replay on the other. Where
 * the executors do not share a server it is the two calls.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignedPoolTakeTest {

    private static final Duration TTL = Duration.ofMinutes(6);

    private PoolRedisHarness harness;
    private final List<String> appKeys = new ArrayList<>();

    private CountingExecutor poolExecutor;
    private RedisIdPools pools;

    @BeforeEach
    void start() {
        harness = new PoolRedisHarness("jdbc:h2:mem:signed-pool-take;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
        pools = harness.newNode(PoolRedisHarness.options().build(), direct -> {
            poolExecutor = new CountingExecutor(direct);
            return poolExecutor;
        });
    }

    @AfterEach
    void stop() {
        try {
            for (String app : appKeys) {
                for (String key : harness.admin().keys("{" + PoolRedisHarness.PREFIX + ":app:" + app + "}*")) {
                    harness.admin().del(key);
                }
            }
        } finally {
            harness.close();
        }
    }

    /** A pool of 100 or 200 IDs, checked on this node (a first plain take), so signed takes can run behind the gate. */
    private String filledPool() {
        PoolEntity entity = harness.entity(b -> b.maxPerRequest(50).maxPerSecond(100_000).step(100)
                .maxPoolSize(200L).thresholdPercent(1).checkInterval(Duration.ofHours(1)));
        pools.register(entity);
        pools.checkNow(entity.key());
        assertThat(pools.take(entity.key(), 1)).hasSize(1);
        return entity.key();
    }

    private String app() {
        String app = "app-" + UUID.randomUUID().toString().substring(0, 8);
        appKeys.add(app);
        return app;
    }

    private static String nonce() {
        return UUID.randomUUID().toString();
    }

    private String tag(String app) {
        return "{" + PoolRedisHarness.PREFIX + ":app:" + app + "}";
    }

    private static AdmittedTake take(RedisRequestGate gate, RedisIdPools pools, String app, String nonce,
                                     boolean allowed, int appMax, String entity, int count) {
        return gate.admitAndTake(app, nonce, System.currentTimeMillis() + TTL.toMillis(), TTL, Duration.ZERO,
                allowed, appMax, pools, entity, count);
    }

    @Test
    void aSignedTakeIsOneScriptCallAndCountsTheApplicationsRate() {
        String entity = filledPool();
        RedisRequestGate gate = new RedisRequestGate(poolExecutor, PoolRedisHarness.PREFIX);
        String app = app();
        long level = harness.level(entity);
        int before = poolExecutor.calls.get();

        AdmittedTake first = take(gate, pools, app, nonce(), true, 5, entity, 3);
        assertThat(first.admission().decision()).isEqualTo(Decision.ADMITTED);
        assertThat(first.ids()).hasSize(3).doesNotHaveDuplicates();
        assertThat(poolExecutor.calls.get() - before).as("script calls of one signed take").isEqualTo(1);
        assertThat(harness.level(entity)).isEqualTo(level - 3);
        assertThat(harness.admin().hget(tag(app) + ":rate", "count")).isEqualTo("3");

        // 3 more would pass the application's 5 in this second (or, in a new second, pass: then 3 are taken)
        AdmittedTake second = take(gate, pools, app, nonce(), true, 5, entity, 3);
        if (second.admission().decision() == Decision.RATE_LIMITED) {
            assertThat(second.ids()).isNull();
            assertThat(harness.level(entity)).as("nothing taken for a refused call").isEqualTo(level - 3);
        } else {
            assertThat(harness.admin().hget(tag(app) + ":rate", "count")).isEqualTo("3");
        }
    }

    @Test
    void aRefusedCallTakesNothingAndAReplayIsRefusedOnEitherPath() {
        String entity = filledPool();
        RedisRequestGate gate = new RedisRequestGate(poolExecutor, PoolRedisHarness.PREFIX);
        long level = harness.level(entity);

        String forbiddenApp = app();
        String forbidden = nonce();
        AdmittedTake refused = take(gate, pools, forbiddenApp, forbidden, false, 100, entity, 2);
        assertThat(refused.admission().decision()).isEqualTo(Decision.FORBIDDEN);
        assertThat(refused.ids()).isNull();
        assertThat(harness.admin().exists(tag(forbiddenApp) + ":nonce:" + forbidden)).as("nonce recorded").isTrue();
        assertThat(harness.admin().exists(tag(forbiddenApp) + ":rate")).as("nothing counted").isFalse();

        String limitedApp = app();
        AdmittedTake limited = take(gate, pools, limitedApp, nonce(), true, 1, entity, 2);
        assertThat(limited.admission().decision()).isEqualTo(Decision.RATE_LIMITED);
        assertThat(limited.admission().retryAfter()).isPositive();

        String staleApp = app();
        String stale = nonce();
        AdmittedTake reset = gate.admitAndTake(staleApp, stale, 0, TTL, Duration.ZERO, true, 100, pools, entity, 2);
        assertThat(reset.admission().decision()).isEqualTo(Decision.STORE_RESET);
        assertThat(harness.admin().exists(tag(staleApp) + ":nonce:" + stale)).as("nothing recorded").isFalse();
        assertThat(harness.level(entity)).as("nothing taken for refused calls").isEqualTo(level);

        String app = app();
        String once = nonce();
        assertThat(take(gate, pools, app, once, true, 100, entity, 2).ids()).hasSize(2);
        assertThat(take(gate, pools, app, once, true, 100, entity, 2).admission().decision())
                .isEqualTo(Decision.REPLAY);
        assertThat(gate.admit(app, once, System.currentTimeMillis() + TTL.toMillis(), TTL, Duration.ZERO, true, 2,
                100).decision()).as("the plain admission finds the nonce").isEqualTo(Decision.REPLAY);
        String plain = nonce();
        assertThat(gate.admit(app, plain, System.currentTimeMillis() + TTL.toMillis(), TTL, Duration.ZERO, true, 2,
                100).decision()).isEqualTo(Decision.ADMITTED);
        assertThat(take(gate, pools, app, plain, true, 100, entity, 2).admission().decision())
                .as("the signed take finds the plain admission's nonce").isEqualTo(Decision.REPLAY);
        assertThat(harness.level(entity)).isEqualTo(level - 2);
    }

    @Test
    void aPoolRefusalRecordsTheNonceAndCountsNothingAgainstTheApplication() {
        String entity = filledPool();
        RedisRequestGate gate = new RedisRequestGate(poolExecutor, PoolRedisHarness.PREFIX);
        harness.admin().ltrim(PoolRedisHarness.listKey(entity), 0, 1);
        String app = app();
        String nonce = nonce();
        assertThatThrownBy(() -> take(gate, pools, app, nonce, true, 100, entity, 3))
                .isInstanceOf(PoolEmptyException.class);
        assertThat(harness.level(entity)).as("all or nothing").isEqualTo(2);
        assertThat(harness.admin().exists(tag(app) + ":nonce:" + nonce)).as("nonce recorded").isTrue();
        assertThat(harness.admin().exists(tag(app) + ":rate")).as("nothing counted").isFalse();
        assertThat(take(gate, pools, app, nonce, true, 100, entity, 1).admission().decision())
                .isEqualTo(Decision.REPLAY);
        assertThat(harness.level(entity)).isEqualTo(2);
    }

    /** Jedis: one client of one server shares it with itself only; a cluster client never. */
    @Test
    void aJedisExecutorSharesItsServerOnlyOverTheSameSingleServerClient() {
        try (UnifiedJedis one = EmbeddedRedisSupport.newClient(); UnifiedJedis other = EmbeddedRedisSupport.newClient()) {
            JedisScriptExecutor executor = new JedisScriptExecutor(one);
            assertThat(executor.sharesOneServerWith(new JedisScriptExecutor(one))).isTrue();
            assertThat(executor.sharesOneServerWith(new JedisScriptExecutor(other)))
                    .as("another client may point at another Redis").isFalse();
            assertThat(executor.sharesOneServerWith(poolExecutor)).isFalse();
        }
    }

    @Test
    void executorsThatDoNotShareAServerMakeTwoCalls() {
        String entity = filledPool();
        CountingExecutor gateExecutor = new CountingExecutor(poolExecutor.inner);
        RedisRequestGate gate = new RedisRequestGate(gateExecutor, PoolRedisHarness.PREFIX);
        String app = app();
        int before = poolExecutor.calls.get();
        AdmittedTake taken = take(gate, pools, app, nonce(), true, 100, entity, 4);
        assertThat(taken.ids()).hasSize(4);
        assertThat(gateExecutor.calls.get()).as("request-admit.lua").isEqualTo(1);
        assertThat(poolExecutor.calls.get() - before).as("pool-take.lua").isEqualTo(1);
    }
}
