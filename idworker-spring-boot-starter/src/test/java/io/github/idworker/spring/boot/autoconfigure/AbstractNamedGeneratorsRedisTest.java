package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdGenerator;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Jedis;

import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two named generators over a Redis centre beside the default worker: leases apart, each namespace's record in
 * Redis naming its holder, IDs unique in each generator's layout, every lease returned on close. A name keeps
 * its capitals and '_'. Each subclass names a Redis server; keys of this test's namespaces are deleted afterwards.
 */
abstract class AbstractNamedGeneratorsRedisTest {

    /** Host and port of the Redis server under test. */
    protected abstract String redisHost();

    protected abstract int redisPort();

    /** Injected by the generators' names, one with capitals and '_'. */
    record Users(IdGenerator orderIds, IdGenerator refunds) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class RedisApp {

        @Bean
        Users users(@Qualifier("Order_Ids") IdGenerator orderIds, @Qualifier("refunds") IdGenerator refunds) {
            return new Users(orderIds, refunds);
        }
    }

    private final String defaultNamespace = TestNames.namespace();
    private final String ordersNamespace = TestNames.namespace();
    private final String refundsNamespace = TestNames.namespace();

    @AfterEach
    void deleteKeys() {
        try (Jedis jedis = new Jedis(redisHost(), redisPort())) {
            for (String namespace : List.of(defaultNamespace, ordersNamespace, refundsNamespace)) {
                jedis.keys("{idworker:" + namespace + "}*").forEach(jedis::del);
            }
        }
    }

    @Test
    void twoGeneratorsLeaseApartInRedisIssueInTheirLayoutsAndReturnTheirLeases() {
        AbstractIdWorker[] kept = new AbstractIdWorker[3];
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withUserConfiguration(RedisApp.class)
                .withPropertyValues("spring.data.redis.host=" + redisHost(), "spring.data.redis.port=" + redisPort(),
                        "idworker.lease.ttl=500ms", "idworker.lease.max-skew=50ms", "idworker.lease.loss-guard=550ms",
                        "idworker.namespace=" + defaultNamespace,
                        "idworker.generators.Order_Ids.namespace=" + ordersNamespace,
                        "idworker.generators.Order_Ids.snowflake.worker-bits=4",
                        "idworker.generators.refunds.namespace=" + refundsNamespace,
                        "idworker.generators.refunds.snowflake.worker-bits=9",
                        "idworker.generators.refunds.snowflake.sequence-bits=13")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Users users = context.getBean(Users.class);
                    kept[0] = (AbstractIdWorker) users.orderIds();
                    kept[1] = (AbstractIdWorker) users.refunds();
                    kept[2] = context.getBean(RedisIdWorker.class);
                    assertThat(kept[0]).isInstanceOf(RedisIdWorker.class).isSameAs(context.getBean("Order_Ids"));
                    assertThat(List.of(kept[0].namespace(), kept[1].namespace(), kept[2].namespace()))
                            .containsExactly(ordersNamespace, refundsNamespace, defaultNamespace);
                    assertIssuesIn(kept[0], SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 4, 12));
                    assertIssuesIn(kept[1], SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 9, 13));
                    try (Jedis jedis = new Jedis(redisHost(), redisPort())) {
                        for (AbstractIdWorker w : kept) {
                            assertThat(ownerOf(jedis, w.namespace(), w.currentLease().workerId()))
                                    .isEqualTo(w.currentLease().owner());
                        }
                    }
                });
        try (Jedis jedis = new Jedis(redisHost(), redisPort())) {
            for (AbstractIdWorker w : kept) {
                assertThat(w.currentLease()).isNull();
                // an expired but unreturned lease would still show its owner here
                assertThat(ownerOf(jedis, w.namespace(), 0)).as("owner in %s after close", w.namespace()).isEmpty();
            }
        }
    }

    private static void assertIssuesIn(AbstractIdWorker worker, SnowflakeLayout layout) {
        long[] ids = worker.nextIds(2000);
        assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(ids.length);
        assertThat(LongStream.of(ids).map(id -> layout.decode(id).workerId()).distinct().toArray())
                .containsExactly(worker.currentLease().workerId());
        assertThat(worker.layout().pinned()).isEqualTo(layout.pinned());
    }

    /** The owner field of a slot's record in the namespace's lease hash: highWater|expires|owner|info. */
    private static String ownerOf(Jedis jedis, String namespace, int slot) {
        String record = jedis.hget("{idworker:" + namespace + "}:lease", Integer.toString(slot));
        assertThat(record).as("record of slot %s in %s", slot, namespace).isNotNull();
        return record.split("\\|", -1)[2];
    }
}
