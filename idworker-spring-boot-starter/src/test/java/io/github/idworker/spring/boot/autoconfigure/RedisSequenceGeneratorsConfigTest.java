package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import redis.clients.jedis.Jedis;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @EnableSegmentIdGenerators(redisSequences = true)} over a real Redis server (embedded-redis) and a real
 * H2 database: the strictly ordered lookup {@code redisSequenceGenerators}. Every test uses tags of its own and
 * deletes their Redis keys afterwards.
 */
class RedisSequenceGeneratorsConfigTest {

    private final List<String> keys = new ArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators(redisSequences = true)
    static class SequencesApp {
    }

    /**
     * A call waits up to 30 s for a refill here, not the default 3 s: a cold JVM's first refill (the H2 schema, the
     * Redis connection, the script loads) took longer than 3 s on a 2-core machine under a full build, and no test
     * here waits for max-wait to pass, so a refill that never lands still fails.
     */
    private static final Duration PATIENT = Duration.ofSeconds(30);

    private ApplicationContextRunner sequences(String url, String clientType) {
        return runner.withUserConfiguration(SequencesApp.class).withPropertyValues(
                "spring.datasource.url=" + url, "spring.data.redis.client-type=" + clientType,
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port(),
                "idworker.segment.redis.max-wait=" + PATIENT.toSeconds() + "s");
    }

    /** A fresh tag whose Redis keys (under {@code prefix}) are deleted after the test. */
    private String tag(String prefix) {
        String tag = "s-" + UUID.randomUUID().toString().substring(0, 12);
        keys.add(RedisSegmentIdGenerator.keyOf(prefix, tag, "range"));
        keys.add(RedisSegmentIdGenerator.keyOf(prefix, tag, "lock"));
        return tag;
    }

    @AfterEach
    void deleteKeys() {
        if (!keys.isEmpty()) {
            try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                jedis.del(keys.toArray(String[]::new));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void defaultsRegisterTheRedisLookupBesideTheInProcessOne(String clientType) {
        String tag = tag("idworker");
        sequences(TestNames.h2Url(), clientType).withPropertyValues("idworker.segment.tags." + tag + ".start-after=500")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("redisSequenceGenerators")).isInstanceOf(RedisSequenceGenerators.class);
                    assertThat(context.getBean("segmentIdGenerators")).isInstanceOf(SegmentIdGenerators.class);
                    // two types, so each lookup is injected by type without a qualifier
                    assertThat(context).hasSingleBean(RedisSequenceGenerators.class).hasSingleBean(SegmentIdGenerators.class);

                    RedisSequenceGenerators sequences = context.getBean(RedisSequenceGenerators.class);
                    RedisSegmentOptions options = sequences.options();
                    assertThat(options.step()).isEqualTo(RedisSegmentOptions.DEFAULT_STEP);
                    assertThat(options.checkRunId()).isTrue();
                    assertThat(options.coalesce()).isTrue();
                    assertThat(options.prefetchThreshold()).isEqualTo(RedisSegmentOptions.DEFAULT_PREFETCH_THRESHOLD);
                    assertThat(options.keyPrefix()).isEqualTo("idworker");

                    long previous = 500;
                    for (int i = 0; i < 30; i++) {
                        long[] ids = (i % 3 == 0) ? new long[] {sequences.nextId(tag)} : sequences.nextIds(tag, 1 + i * 40);
                        assertThat(ids[0]).as("call %s starts above the previous one", i).isGreaterThan(previous);
                        assertThat(ids).isSorted();
                        previous = ids[ids.length - 1];
                    }
                    RedisSegmentIdGenerator generator = sequences.forTag(tag);
                    assertThat(generator.installedRanges()).as("ranges installed from the table").isGreaterThan(1);
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.hget(generator.rangeKey(), "v_l")).isEqualTo(Long.toString(previous));
                        assertThat(generator.rangeKey()).isEqualTo("{idworker:segment:" + tag + "}:range");
                    }
                });
    }

    /**
     * Every property reaches the options. max-wait is 7 s, neither the default 3 s nor this class's {@link #PATIENT},
     * so that its value proves it came from the property; and not short, since this context's first refills (H2, then
     * Redis) wait up to max-wait, and on a 2-core machine under a full build they took longer than the 400 ms this
     * test used to set.
     */
    @Test
    void propertiesReachTheRedisSequences() {
        String tag = tag("custom-prefix");
        sequences(TestNames.h2Url(), "jedis").withPropertyValues("idworker.redis.key-prefix=custom-prefix",
                        "idworker.segment.auto-create=true", "idworker.segment.redis.step=7",
                        "idworker.segment.redis.max-batch=50", "idworker.segment.redis.lock-ttl=2s",
                        "idworker.segment.redis.max-wait=7s", "idworker.segment.redis.check-run-id=false",
                        "idworker.segment.redis.coalesce=false", "idworker.segment.redis.prefetch-threshold=1",
                        "idworker.segment.redis.max-in-flight=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisSequenceGenerators sequences = context.getBean(RedisSequenceGenerators.class);
                    RedisSegmentOptions options = sequences.options();
                    assertThat(options.step()).isEqualTo(7);
                    assertThat(options.maxBatch()).isEqualTo(50);
                    assertThat(options.lockTtl()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(options.maxWait()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(options.checkRunId()).isFalse();
                    assertThat(options.coalesce()).isFalse();
                    assertThat(options.maxInFlight()).isEqualTo(3);
                    assertThat(options.prefetchThreshold()).isEqualTo(1.0);
                    assertThat(options.keyPrefix()).isEqualTo("custom-prefix");

                    assertThat(sequences.nextIds(tag, 3)).containsExactly(1, 2, 3);
                    assertThat(sequences.nextIds(tag, 4)).containsExactly(4, 5, 6, 7);
                    assertThat(sequences.nextId(tag)).isEqualTo(8);
                    assertThat(sequences.forTag(tag).installedRanges()).as("ranges of 7").isEqualTo(2);
                    assertThatThrownBy(() -> sequences.nextIds(tag, 51)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("idworker.segment.redis.max-batch");
                    assertThatThrownBy(() -> sequences.nextId("{bad}")).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("'{' or '}'");
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.exists("{custom-prefix:segment:" + tag + "}:range")).isTrue();
                        assertThat(jedis.exists("{idworker:segment:" + tag + "}:range")).isFalse();
                    }
                });
    }

    @Test
    void anUnknownTagWithAutoCreateOffFailsNamingTheTagAndIsForgotten() {
        String tag = tag("idworker");
        sequences(TestNames.h2Url(), "jedis").run(context -> {
            RedisSequenceGenerators sequences = context.getBean(RedisSequenceGenerators.class);
            assertThatThrownBy(() -> sequences.nextIds(tag, 2))
                    .isInstanceOfSatisfying(UnknownSegmentTagException.class, e -> {
                        assertThat(e.getBizTag()).isEqualTo(tag);
                        assertThat(e.getMessage()).contains("'" + tag + "'").contains("idworker.segment.auto-create");
                    });
            assertThat(sequences.tags()).doesNotContain(tag);
        });
    }

    @Test
    void twoNodesShareOneStrictlyIncreasingSequence() {
        String url = TestNames.h2Url();
        String tag = tag("idworker");
        ApplicationContextRunner node = sequences(url, "jedis").withPropertyValues("idworker.segment.auto-create=true",
                "idworker.segment.redis.step=10");
        node.run(first -> node.run(second -> {
            RedisSequenceGenerators a = first.getBean(RedisSequenceGenerators.class);
            RedisSequenceGenerators b = second.getBean(RedisSequenceGenerators.class);
            assertThat(first.getBean(DataSource.class)).isNotSameAs(second.getBean(DataSource.class));
            long previous = 0;
            for (int i = 0; i < 200; i++) {
                long id = ((i % 2 == 0) ? a : b).nextId(tag);
                assertThat(id).as("call %s, node %s", i, i % 2).isGreaterThan(previous);
                previous = id;
            }
            // every range of 10 was used up before the next was installed, so nothing was skipped either
            assertThat(previous).isEqualTo(200);
        }));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators(redisSequences = true)
    static class CustomSequencesApp {

        @Bean
        RedisSequenceGenerators redisSequenceGenerators(RedisConnectionFactory connectionFactory,
                                                        io.github.idworker.segment.SegmentAllocator segmentAllocator) {
            return new RedisSequenceGenerators(new SpringRedisScriptExecutor(connectionFactory), segmentAllocator,
                    RedisSegmentOptions.builder().keyPrefix("mine").step(3).maxWait(PATIENT).build());
        }
    }

    @Test
    void aUserBeanNamedRedisSequenceGeneratorsReplacesTheDefault() {
        String tag = tag("mine");
        runner.withUserConfiguration(CustomSequencesApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + EmbeddedRedis.port(), "idworker.segment.auto-create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RedisSequenceGenerators.class);
                    RedisSequenceGenerators sequences = context.getBean(RedisSequenceGenerators.class);
                    assertThat(sequences.options().keyPrefix()).isEqualTo("mine");
                    assertThat(sequences.nextIds(tag, 4)).containsExactly(1, 2, 3, 4);
                });
    }

    @Test
    void closingTheContextForgetsTheGeneratorsButKeepsTheRangeInRedis() {
        String url = TestNames.h2Url();
        String tag = tag("idworker");
        ApplicationContextRunner node = sequences(url, "jedis").withPropertyValues("idworker.segment.auto-create=true");
        long[] last = new long[1];
        node.run(context -> {
            RedisSequenceGenerators sequences = context.getBean(RedisSequenceGenerators.class);
            last[0] = sequences.nextIds(tag, 10)[9];
            context.close();
            assertThat(sequences.tags()).isEmpty();
        });
        node.run(context -> assertThat(context.getBean(RedisSequenceGenerators.class).nextId(tag)).isEqualTo(last[0] + 1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.segment.redis.step=0             | idworker.segment.redis.step
            idworker.segment.redis.max-batch=0        | idworker.segment.redis.max-batch
            idworker.segment.redis.lock-ttl=50ms      | idworker.segment.redis.lock-ttl
            idworker.segment.redis.max-wait=0s        | idworker.segment.redis.max-wait
            idworker.segment.redis.prefetch-threshold=0 | idworker.segment.redis.prefetch-threshold
            idworker.segment.redis.max-in-flight=0    | idworker.segment.redis.max-in-flight
            idworker.redis.key-prefix={bad}           | idworker.redis.key-prefix
            """)
    void badValuesFailStartupNamingTheProperty(String properties, String property) {
        sequences(TestNames.h2Url(), "jedis").withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(StartupFailures.cause(failure, IdWorkerConfigurationException.class).getProperty())
                    .isEqualTo(property);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains("redisSequenceGenerators").contains(property);
            assertThat(analysis.getAction()).contains(property);
        });
    }

    @Test
    void withoutARedisConnectionFactoryStartupFailsNamingSpringDataRedis() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(SequencesApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                            .getProperty()).isEqualTo("spring.data.redis.host");
                });
    }

    @Test
    void redisSequencesWithoutSpringDataRedisOnTheClassPathFailNamingTheDependency() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(SequencesApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("@EnableSegmentIdGenerators(redisSequences = true)");
                    assertThat(cause.getMessage()).contains("spring-boot-starter-data-redis");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("redisSequences");
                });
    }
}
