package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.serial.UnknownSerialRuleException;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.snowflake.MillisClock;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @EnableSerialNumbers(mode = SerialMode.LOCAL)} over a real H2 database, one fresh database per test: the
 * in-process {@code serialNumbers}, their strings, and what survives a restart.
 */
class LocalSerialNumbersConfigTest {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class LocalApp {
    }

    private ApplicationContextRunner local(String url) {
        return runner.withUserConfiguration(LocalApp.class).withPropertyValues("spring.datasource.url=" + url,
                "idworker.serial.rules.order.prefix=ORD", "idworker.serial.rules.order.date-pattern=yyyyMMdd",
                "idworker.serial.rules.order.width=6", "idworker.serial.rules.order.reset=daily",
                "idworker.serial.rules.order.zone=Asia/Shanghai",
                "idworker.serial.rules.invoice.prefix=INV-", "idworker.serial.rules.invoice.width=8");
    }

    private static String today() {
        return LocalDate.now(SHANGHAI).format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    @Test
    void serialNumbersAreLocalAndPrintPrefixDateAndNumber() {
        local(TestNames.h2Url()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("serialNumbers")).isInstanceOf(LocalSerialNumbers.class);
            assertThat(context).hasSingleBean(SerialNumbers.class).doesNotHaveBean(RedisSerialNumbers.class);
            assertThat(context.getBean("serialStore")).isInstanceOf(JdbcSerialStore.class);
            assertThat(context).doesNotHaveBean("dbIdWorker").doesNotHaveBean("segmentIdGenerators");

            SerialNumbers serials = context.getBean(SerialNumbers.class);
            String before = today();
            String first = serials.next("order");
            List<String> next = serials.next("order", 3);
            String after = today();
            String date = first.substring(3, 11);
            assertThat(date).as("today in Asia/Shanghai").isIn(before, after);
            assertThat(first).isEqualTo("ORD" + date + "000001");
            assertThat(next).containsExactly("ORD" + date + "000002", "ORD" + date + "000003", "ORD" + date + "000004");
            assertThat(serials.next("invoice", 2)).containsExactly("INV-00000001", "INV-00000002");

            // the reservation is durable: the period's high-water covers what was handed out
            SerialStore store = context.getBean(SerialStore.class);
            assertThat(store.highWater("order", date).orElseThrow()).isGreaterThanOrEqualTo(4);
            assertThat(store.highWater("invoice", "all").orElseThrow()).isGreaterThanOrEqualTo(2);
        });
    }

    @Test
    void aRestartContinuesAboveEverythingHandedOut() {
        String url = TestNames.h2Url();
        String[] last = new String[1];
        local(url).run(context -> last[0] = context.getBean(SerialNumbers.class).next("invoice", 150).get(149));
        assertThat(last[0]).isEqualTo("INV-00000150");
        local(url).run(context -> assertThat(context.getBean(SerialNumbers.class).next("invoice"))
                .as("above everything reserved before the restart").isGreaterThan(last[0]));
    }

    @Test
    void twoNodesOverOneTableNeverHandOutTheSameString() {
        String url = TestNames.h2Url();
        local(url).withPropertyValues("idworker.serial.rules.invoice.min-batch=10",
                "idworker.serial.rules.invoice.max-batch=10").run(first -> local(url).run(second -> {
                    SerialNumbers a = first.getBean(SerialNumbers.class);
                    SerialNumbers b = second.getBean(SerialNumbers.class);
                    java.util.Set<String> seen = new java.util.HashSet<>();
                    for (int i = 0; i < 100; i++) {
                        String s = ((i % 2 == 0) ? a : b).next("invoice");
                        assertThat(seen.add(s)).as("%s handed out twice", s).isTrue();
                    }
                }));
    }

    @Test
    void aRuleThatIsNotRegisteredFailsNamingItWithoutTheDatabaseUrlOrPassword() {
        String secret = "Pw-" + java.util.UUID.randomUUID();
        local(TestNames.h2Url()).withPropertyValues("spring.datasource.password=" + secret).run(context -> {
            assertThat(context).hasNotFailed();
            SerialNumbers serials = context.getBean(SerialNumbers.class);
            assertThatThrownBy(() -> serials.next("nope")).isInstanceOfSatisfying(UnknownSerialRuleException.class,
                    e -> {
                        assertThat(e.getRule()).isEqualTo("nope");
                        assertThat(e.getMessage()).contains("'nope'").contains("idworker.serial.rules.nope.*")
                                .contains("idworker_serial_rule").doesNotContain(secret);
                    });
            assertThatThrownBy(() -> serials.next("nope", 2)).isInstanceOf(UnknownSerialRuleException.class);
        });
    }

    @Test
    void aRulePastItsMaxIsExhaustedAndNothingPastItIsHandedOut() {
        local(TestNames.h2Url()).withPropertyValues("idworker.serial.rules.tiny.width=1",
                "idworker.serial.rules.tiny.max=3", "idworker.serial.rules.tiny.min-batch=1").run(context -> {
                    SerialNumbers serials = context.getBean(SerialNumbers.class);
                    assertThat(serials.next("tiny", 3)).containsExactly("1", "2", "3");
                    assertThatThrownBy(() -> serials.next("tiny")).isInstanceOfSatisfying(SerialExhaustedException.class,
                            e -> assertThat(e.getMessage()).contains("'tiny'").contains("max 3")
                                    .contains("idworker.serial.rules.tiny.max"));
                });
    }

    @Test
    void needsNoRedisClasses() {
        local(TestNames.h2Url())
                .withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "redis.clients"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SerialNumbers.class).next("invoice")).isEqualTo("INV-00000001");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class CustomNumbersApp {

        @Bean
        SerialNumbers serialNumbers(@Qualifier("serialStore") SerialStore store, SerialRules rules) {
            LocalSerialNumbers local = new LocalSerialNumbers(store, rules, MillisClock.SYSTEM);
            return new SerialNumbers() {
                @Override
                public String next(String rule) {
                    return "mine-" + local.next(rule);
                }

                @Override
                public List<String> next(String rule, int count) {
                    return local.next(rule, count);
                }
            };
        }
    }

    @Test
    void aUserBeanNamedSerialNumbersReplacesTheDefaultAndTheRulesAreStillRegistered() {
        runner.withUserConfiguration(CustomNumbersApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.serial.rules.invoice.width=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(SerialNumbers.class).doesNotHaveBean(LocalSerialNumbers.class);
                    assertThat(context.getBean(SerialNumbers.class).next("invoice")).isEqualTo("mine-00000001");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    @EnableSegmentIdGenerators
    static class SerialsAndSegmentsApp {
    }

    @Test
    void worksBesideSegmentsOnTheSameDataSource() {
        runner.withUserConfiguration(SerialsAndSegmentsApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.segment.auto-create=true",
                        "idworker.serial.rules.invoice.width=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SegmentIdGenerators.class).nextId("invoice")).isEqualTo(1);
                    assertThat(context.getBean(SerialNumbers.class).next("invoice")).isEqualTo("00000001");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSerialNumbers
    static class StrictApp {
    }

    @Test
    void strictModeWithoutSpringDataRedisOnTheClassPathFailsNamingTheDependencyAndLocalMode() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(StrictApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url())
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("@EnableSerialNumbers(mode = SerialMode.STRICT)");
                    assertThat(cause.getMessage()).contains("spring-boot-starter-data-redis").contains("SerialMode.LOCAL");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("@EnableSerialNumbers(mode = SerialMode.LOCAL)");
                });
    }
}
