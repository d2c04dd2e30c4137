package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DecodedId;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import redis.clients.jedis.Jedis;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @EnableIdWorker(mode = CenterMode.REDIS)} over a real Redis server (embedded-redis), one namespace per
 * test. A short ttl keeps the first borrow of each fresh namespace, which waits ttl + max-skew by design, short.
 */
class RedisIdWorkerConfigTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues("idworker.lease.ttl=500ms", "idworker.lease.max-skew=50ms",
                    "idworker.lease.loss-guard=550ms");

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class RedisApp {
    }

    private ApplicationContextRunner redis(String namespace) {
        return redis(namespace, "lettuce");
    }

    private ApplicationContextRunner redis(String namespace, String clientType) {
        return runner.withUserConfiguration(RedisApp.class).withPropertyValues(
                "spring.data.redis.client-type=" + clientType,
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port(),
                "idworker.namespace=" + namespace);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void defaultsRegisterARedisManagerAndAStartedRedisIdWorker(String clientType) {
        String namespace = TestNames.namespace();
        redis(namespace, clientType).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RedisIdWorker.class);
            assertThat(context.getBean("redisIdWorker")).isInstanceOf(RedisIdWorker.class);
            assertThat(context.getBean("redisSequenceManager")).isInstanceOf(RedisSequenceManager.class);
            assertThat(context.getBean(RedisConnectionFactory.class).getClass().getSimpleName())
                    .startsWithIgnoringCase(clientType);
            assertThat(context).doesNotHaveBean("dbIdWorker");
            RedisIdWorker worker = context.getBean(RedisIdWorker.class);
            assertThat(worker.namespace()).isEqualTo(namespace);

            long[] ids = worker.nextIds(5000);
            assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(5000);
            assertThat(ids).isSorted();
            DecodedId decoded = worker.decode(ids[ids.length - 1]);
            assertThat(decoded.workerId()).isEqualTo(worker.currentLease().workerId());
            assertThat(decoded.timestamp()).isBetween(Instant.now().minusSeconds(60), Instant.now());

            // renewals go through the Lua scripts too
            long before = worker.currentLease().highWaterMillis();
            Thread.sleep(20);
            worker.renew();
            assertThat(worker.currentLease().highWaterMillis()).isGreaterThan(before);

            RedisSequenceManager manager = context.getBean(RedisSequenceManager.class);
            try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                // a slot's record in the namespace's lease hash: highWater|expires|owner|info
                String record = jedis.hget(manager.leaseKey(namespace), Integer.toString(worker.currentLease().workerId()));
                assertThat(record.split("\\|")[2]).isEqualTo(worker.currentLease().owner());
            }
        });
    }

    /** A real Redis centre under its own key prefix that records what the worker asks of it. */
    static class RecordingRedisSequenceManager extends RedisSequenceManager {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingRedisSequenceManager(RedisConnectionFactory connectionFactory) {
            super(new SpringRedisScriptExecutor(connectionFactory), "custom-prefix");
        }

        @Override
        public WorkerLease borrow(LeaseRequest request) {
            calls.add("borrow");
            return super.borrow(request);
        }

        @Override
        public void giveBack(WorkerLease lease, long lastIssuedMillis) {
            calls.add("giveBack");
            super.giveBack(lease, lastIssuedMillis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class CustomManagerApp {

        @Bean
        RecordingRedisSequenceManager redisSequenceManager(RedisConnectionFactory connectionFactory) {
            return new RecordingRedisSequenceManager(connectionFactory);
        }
    }

    @Test
    void aUserBeanNamedRedisSequenceManagerReplacesTheDefault() {
        String namespace = TestNames.namespace();
        RecordingRedisSequenceManager[] used = new RecordingRedisSequenceManager[1];
        runner.withUserConfiguration(CustomManagerApp.class)
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port(),
                        "idworker.namespace=" + namespace)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RedisSequenceManager.class);
                    used[0] = context.getBean(RecordingRedisSequenceManager.class);
                    assertThat(context.getBean("redisSequenceManager")).isSameAs(used[0]);
                    RedisIdWorker worker = context.getBean(RedisIdWorker.class);
                    assertThat(worker.nextIds(100)).doesNotHaveDuplicates();
                    assertThat(used[0].calls).containsExactly("borrow");
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.exists("{custom-prefix:" + namespace + "}:lease")).isTrue();
                        assertThat(jedis.exists("{idworker:" + namespace + "}:lease")).isFalse();
                    }
                });
        assertThat(used[0].calls).containsExactly("borrow", "giveBack");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void closingTheContextReturnsTheLease(String clientType) {
        String namespace = TestNames.namespace();
        // two worker ids (the fewest the starter allows): the second worker takes worker id 0 again only because
        // the first returned it with its high-water in the past
        ApplicationContextRunner oneSlot = redis(namespace, clientType).withPropertyValues("idworker.snowflake.worker-bits=1");
        long[] last = new long[2];
        oneSlot.run(context -> {
            assertThat(context).hasNotFailed();
            AbstractIdWorker worker = context.getBean(RedisIdWorker.class);
            last[0] = worker.nextIds(10)[9];
            last[1] = worker.decode(last[0]).timestamp().toEpochMilli();
            context.close();
            assertThat(worker.currentLease()).isNull();
        });
        // an expired but unreturned lease would still show its owner here
        try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
            String[] record = jedis.hget("{idworker:" + namespace + "}:lease", "0").split("\\|");
            assertThat(record[2]).as("owner after close").isEmpty();
            assertThat(Long.parseLong(record[0])).as("high-water = last issued timestamp").isEqualTo(last[1]);
        }
        oneSlot.run(context -> {
            assertThat(context).hasNotFailed();
            RedisIdWorker second = context.getBean(RedisIdWorker.class);
            assertThat(second.currentLease().workerId()).isZero();
            assertThat(second.nextId()).isGreaterThan(last[0]);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void anUnreachableRedisFailsNamingHostAndPort(String clientType) {
        int port = EmbeddedRedis.freePort();
        runner.withUserConfiguration(RedisApp.class)
                .withPropertyValues("spring.data.redis.client-type=" + clientType, "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
                        "spring.data.redis.connect-timeout=2s", "idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasFailed();
                    CenterUnavailableException cause = StartupFailures.cause(context.getStartupFailure(),
                            CenterUnavailableException.class);
                    assertThat(cause.getMessage()).contains("127.0.0.1:" + port);
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("redisIdWorker").contains("127.0.0.1:" + port);
                    assertThat(analysis.getAction()).contains("spring.data.redis");
                });
    }

    @Test
    void invalidKeyPrefixFailsNamingTheProperty() {
        redis(TestNames.namespace()).withPropertyValues("idworker.redis.key-prefix={bad}").run(context -> {
            assertThat(context).hasFailed();
            assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                    .getProperty()).isEqualTo("idworker.redis.key-prefix");
        });
    }

    @Test
    void withoutARedisConnectionFactoryStartupFailsNamingSpringDataRedis() {
        new ApplicationContextRunner().withUserConfiguration(RedisApp.class)
                .withPropertyValues("idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                            .getProperty()).isEqualTo("spring.data.redis.host");
                });
    }

    @Test
    void redisModeWithoutSpringDataRedisOnTheClassPathFailsNamingTheDependency() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withUserConfiguration(RedisApp.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getMessage()).contains("spring-boot-starter-data-redis");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("CenterMode");
                });
    }
}
