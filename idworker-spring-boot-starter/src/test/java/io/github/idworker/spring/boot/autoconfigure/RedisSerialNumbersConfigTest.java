package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.serial.redis.RedisSerialOptions;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @EnableSerialNumbers} in its default mode, {@link SerialMode#STRICT}, over a real Redis server
 * (embedded-redis) with either client and a real H2 database: the bean {@code serialNumbers} is a
 * {@link RedisSerialNumbers} over the application's own {@link RedisConnectionFactory}, handing out one
 * contiguous numbering to every node; its options come from {@code idworker.serial.redis.*}, and what it cannot
 * run with fails the startup naming the property. Tests that take numbers use rules of their own and delete
 * their Redis keys afterwards.
 */
class RedisSerialNumbersConfigTest {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    /** Key patterns of the rules the test used. */
    private final List<String> keyPatterns = new ArrayList<>();

    /** A fresh rule name whose Redis keys (under {@code prefix}) are deleted after the test. */
    private String rule(String prefix) {
        String rule = "r-" + UUID.randomUUID().toString().substring(0, 12);
        keyPatterns.add("{" + prefix + ":serial:" + rule + "}*");
        return rule;
    }

    /** The properties of a daily rule {@code ORD<yyyyMMdd><6 digits>} in Asia/Shanghai. */
    private static String[] daily(String rule) {
        String p = "idworker.serial.rules." + rule + ".";
        return new String[] {p + "prefix=ORD", p + "date-pattern=yyyyMMdd", p + "width=6", p + "reset=daily",
                p + "zone=Asia/Shanghai"};
    }

    private static String today() {
        return LocalDate.now(SHANGHAI).format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    @AfterEach
    void deleteKeys() {
        try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
            for (String pattern : keyPatterns) {
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
                    if (!page.getResult().isEmpty()) {
                        jedis.del(page.getResult().toArray(String[]::new));
                    }
                    cursor = page.getCursor();
                } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            }
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers
    static class StrictApp {
    }

    /**
     * For contexts that take numbers: a call waits up to 30 s for the first refill, not the default 3 s. A cold JVM's
     * first refill (the H2 schema, the Redis connection, the script loads) took longer than 3 s on a 2-core machine
     * under a full build, and no test here waits for max-wait to pass: a refill that never lands still fails.
     */
    private static final String PATIENT = "idworker.serial.redis.max-wait=30s";

    private ApplicationContextRunner strict(String url, String clientType) {
        return runner.withUserConfiguration(StrictApp.class).withPropertyValues(
                "spring.datasource.url=" + url, "spring.data.redis.client-type=" + clientType,
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + EmbeddedRedis.port(),
                "idworker.serial.rules.order.prefix=ORD", "idworker.serial.rules.order.date-pattern=yyyyMMdd",
                "idworker.serial.rules.order.width=6", "idworker.serial.rules.order.reset=daily",
                "idworker.serial.rules.order.zone=Asia/Shanghai");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void theDefaultModeRegistersRedisSerialNumbersOverTheApplicationsConnectionFactory(String clientType) {
        strict(TestNames.h2Url(), clientType).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(
                    clientType.equals("jedis") ? JedisConnectionFactory.class : LettuceConnectionFactory.class);
            assertThat(context.getBean("serialNumbers")).isInstanceOf(RedisSerialNumbers.class);
            assertThat(context).hasSingleBean(SerialNumbers.class).doesNotHaveBean(LocalSerialNumbers.class);
            assertThat(context.getBean("serialStore")).isInstanceOf(JdbcSerialStore.class);
            assertThat(context.getBean("serialRules")).isInstanceOf(SerialRules.class);
            // the rules are in the table before the numbers exist
            assertThat(context.getBean(JdbcSerialStore.class).find("order")).isPresent();
            RedisSerialNumbers serials = context.getBean(RedisSerialNumbers.class);
            assertThat(serials.waitedCalls()).isZero();
            assertThat(serials.refills()).isZero();
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void twoNodesShareOneContiguousNumberingWithEitherClient(String clientType) {
        String url = TestNames.h2Url();
        String rule = rule("idworker");
        ApplicationContextRunner node = strict(url, clientType).withPropertyValues(daily(rule))
                .withPropertyValues(PATIENT);
        node.run(first -> node.run(second -> {
            RedisSerialNumbers a = first.getBean(RedisSerialNumbers.class);
            RedisSerialNumbers b = second.getBean(RedisSerialNumbers.class);
            String before = today();
            String one = a.next(rule);
            String date = one.substring(3, 11);
            assertThat(date).as("today in Asia/Shanghai").isIn(before, today());
            assertThat(one).isEqualTo("ORD" + date + "000001");
            assertThat(b.next(rule, 3)).as("the other node continues the same stock")
                    .containsExactly("ORD" + date + "000002", "ORD" + date + "000003", "ORD" + date + "000004");
            assertThat(a.next(rule)).isEqualTo("ORD" + date + "000005");
            // the numbers entered Redis only after the database's high-water passed them
            assertThat(first.getBean(JdbcSerialStore.class).highWater(rule, date).orElseThrow())
                    .isGreaterThanOrEqualTo(5);
            try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                assertThat(jedis.hget("{idworker:serial:" + rule + "}:" + date, "lo")).isEqualTo("5");
            }
        }));
    }

    @Test
    void theDefaultOptionsAreTheCoresDefaults() {
        strict(TestNames.h2Url(), "jedis").run(context -> {
            RedisSerialOptions options = RedisSerialNumbersConfig.redisOptions(context.getBean(IdWorkerProperties.class));
            RedisSerialOptions defaults = RedisSerialOptions.defaults();
            assertThat(options.keyPrefix()).isEqualTo(defaults.keyPrefix()).isEqualTo("idworker");
            assertThat(options.lockTtl()).isEqualTo(defaults.lockTtl());
            assertThat(options.maxWait()).isEqualTo(defaults.maxWait());
            assertThat(options.refillCover()).isEqualTo(defaults.refillCover());
            assertThat(options.checkRunId()).isTrue();
        });
    }

    /**
     * Every property reaches the options. max-wait is 7 s, not the default 3 s, so that its value proves it came from
     * the property; and not short, since this context's first serial waits up to max-wait for its first refill (H2,
     * then Redis), which on a 2-core machine under a full build took longer than the 400 ms this test used to set.
     */
    @Test
    void propertiesReachTheOptions() {
        String rule = rule("custom-prefix");
        strict(TestNames.h2Url(), "jedis").withPropertyValues("idworker.redis.key-prefix=custom-prefix",
                        "idworker.serial.redis.lock-ttl=2s", "idworker.serial.redis.max-wait=7s",
                        "idworker.serial.redis.refill-cover=90s", "idworker.serial.redis.check-run-id=false",
                        "idworker.serial.rules." + rule + ".width=4")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisSerialOptions options = RedisSerialNumbersConfig.redisOptions(
                            context.getBean(IdWorkerProperties.class));
                    assertThat(options.keyPrefix()).isEqualTo("custom-prefix");
                    assertThat(options.lockTtl()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(options.maxWait()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(options.refillCover()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(options.checkRunId()).isFalse();

                    assertThat(context.getBean(RedisSerialNumbers.class).next(rule, 2)).containsExactly("0001", "0002");
                    try (Jedis jedis = new Jedis("127.0.0.1", EmbeddedRedis.port())) {
                        assertThat(jedis.exists("{custom-prefix:serial:" + rule + "}:all")).isTrue();
                        assertThat(jedis.exists("{idworker:serial:" + rule + "}:all")).isFalse();
                    }
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            idworker.serial.redis.lock-ttl=0s       | idworker.serial.redis.lock-ttl
            idworker.serial.redis.max-wait=0ms      | idworker.serial.redis.max-wait
            idworker.serial.redis.refill-cover=-1s  | idworker.serial.redis.refill-cover
            idworker.redis.key-prefix={bad}         | idworker.redis.key-prefix
            """)
    void badValuesFailStartupNamingTheProperty(String properties, String property) {
        strict(TestNames.h2Url(), "jedis").withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(StartupFailures.cause(failure, IdWorkerConfigurationException.class).getProperty())
                    .isEqualTo(property);
            FailureAnalysis analysis = StartupFailures.analysis(failure);
            assertThat(analysis.getDescription()).contains("serialNumbers").contains(property);
            assertThat(analysis.getAction()).contains(property);
        });
    }

    @Test
    void withoutARedisConnectionFactoryStartupFailsNamingSpringDataRedisAndLocalMode() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(StrictApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("spring.data.redis.host");
                    assertThat(cause.getMessage()).contains("SerialMode.STRICT").contains("SerialMode.LOCAL");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers
    static class CustomNumbersApp {

        @Bean
        LocalSerialNumbers serialNumbers(@Qualifier("serialStore") SerialStore store, SerialRules rules) {
            return new LocalSerialNumbers(store, rules, MillisClock.SYSTEM);
        }
    }

    @Test
    void aUserBeanNamedSerialNumbersReplacesTheRedisOneWhichThenNeedsNoConnectionFactory() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(CustomNumbersApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.serial.rules.invoice.width=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(SerialNumbers.class).doesNotHaveBean(RedisSerialNumbers.class);
                    assertThat(context.getBean(SerialNumbers.class).next("invoice")).isEqualTo("00000001");
                });
    }
}
