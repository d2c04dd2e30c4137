package io.github.idworker.test.serial;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRuleStatus;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.test.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The counters of local serials over period rollovers (#12 review, F5): a retired generator is counted exactly
 * once, however many threads meet at the rollover, and the rule's {@code issued} never goes back while a period
 * changes (a counter that goes back reads as a reset to Prometheus). An in-memory store keeps 3000 periods fast.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalSerialNumbersCountersTest {

    private static final int ROUNDS = 3000;
    private static final int THREADS = 4;

    @Test
    void issuedEqualsHandedOutAfterThreadsMeetAtEveryPeriodRollover() throws Exception {
        InMemorySerialStore store = new InMemorySerialStore();
        SerialRule rule = store.register(SerialRule.builder("daily").prefix("ORD").datePattern("yyyyMMdd").width(6)
                .reset(SerialReset.DAILY).zone("UTC").build());
        ManualClock clock = new ManualClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS).plus(Duration.ofHours(12)).toEpochMilli());
        SerialRules rules = new SerialRules(store, Duration.ofHours(1));
        AtomicLong handedOut = new AtomicLong();
        AtomicLong lastIssued = new AtomicLong();
        AtomicBoolean wentBack = new AtomicBoolean();
        try (LocalSerialNumbers serials = new LocalSerialNumbers(store, rules, clock)) {
            // the barrier's action runs while every thread waits: one day on, so all four meet the new period
            CyclicBarrier barrier = new CyclicBarrier(THREADS, () -> clock.advance(TimeUnit.DAYS.toMillis(1)));
            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
            try {
                AtomicBoolean done = new AtomicBoolean();
                Future<?> reader = pool.submit(() -> {
                    while (!done.get()) {
                        long issued = issued(serials, rule.name());
                        if (issued < lastIssued.getAndAccumulate(issued, Math::max)) {
                            wentBack.set(true);
                        }
                    }
                });
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    workers.add(pool.submit(() -> {
                        for (int r = 0; r < ROUNDS; r++) {
                            barrier.await();
                            serials.next(rule.name());
                            handedOut.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> w : workers) {
                    w.get();
                }
                done.set(true);
                reader.get();
            } finally {
                pool.shutdownNow();
            }
            assertThat(handedOut.get()).isEqualTo((long) ROUNDS * THREADS);
            assertThat(issued(serials, rule.name())).as("issued as ruleStatuses() reports it")
                    .isEqualTo(handedOut.get());
            assertThat(wentBack).as("issued went back while a period changed").isFalse();
        }
    }

    @Test
    void aRuleRefusedForAChangedShapeIsFailingFromMemory() {
        InMemorySerialStore store = new InMemorySerialStore();
        SerialRule rule = store.register(SerialRule.builder("refused").prefix("INV").width(6).build());
        ManualClock clock = new ManualClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS).plus(Duration.ofHours(12)).toEpochMilli());
        SerialRules rules = new SerialRules(store, Duration.ofMillis(1), "memory", Runnable::run);
        try (LocalSerialNumbers serials = new LocalSerialNumbers(store, rules, clock)) {
            serials.next(rule.name());
            assertThat(serials.ruleStatus(rule.name())).get().extracting(SerialRuleStatus::failing).isEqualTo(false);

            store.edit(rule.toBuilder().prefix("BIL").build());
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThatThrownBy(() -> serials.next(rule.name()))
                    .isInstanceOf(IdWorkerConfigurationException.class));

            SerialRuleStatus status = serials.ruleStatus(rule.name()).orElseThrow();
            assertThat(status.failing()).as("a refused rule is failing").isTrue();
            assertThat(status.lastFailure()).contains("prefix");
            assertThat(serials.ruleStatuses()).filteredOn(s -> s.rule().equals(rule.name()))
                    .extracting(SerialRuleStatus::failing).containsExactly(true);
        }
    }

    private static long issued(LocalSerialNumbers serials, String rule) {
        return serials.ruleStatuses().stream().filter(s -> s.rule().equals(rule)).mapToLong(SerialRuleStatus::issued)
                .sum();
    }
}
