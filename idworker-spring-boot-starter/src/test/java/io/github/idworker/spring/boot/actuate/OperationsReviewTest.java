package io.github.idworker.spring.boot.actuate;

import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.SegmentRefillTimeoutException;
import io.github.idworker.test.FlakySegmentAllocator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Holes of the operations found by the #12 review: health that stayed DOWN after an outage (F1), a probe that
 * created beans (F3) and meters without bound (F4). The segment table is an in-memory fake of the
 * SegmentAllocator SPI that fails on demand.
 */
class OperationsReviewTest {


    /** A lookup whose calls wait 50 ms for a range: the outage tests make many calls that must fail. */
    private static SegmentIdGenerators lookup(FlakySegmentAllocator allocator) {
        return lookup(allocator, Duration.ofMillis(50));
    }

    private static SegmentIdGenerators lookup(FlakySegmentAllocator allocator, Duration maxWait) {
        SegmentGeneratorOptions options = SegmentGeneratorOptions.builder().minStep(10).initialStep(10).maxStep(10)
                .prefetchThreshold(0.1).maxWait(maxWait).build();
        return new SegmentIdGenerators(tag -> new SegmentIdGenerator(allocator, tag, options));
    }

    /**
     * A call that must succeed (the store is up): retried while a range takes longer than the 50 ms wait, as a
     * first range may on a loaded machine; any other failure fails the test.
     */
    private static void issue(SegmentIdGenerators lookup, String tag) {
        await().atMost(Duration.ofSeconds(10)).ignoreException(SegmentRefillTimeoutException.class)
                .until(() -> lookup.nextId(tag) > 0);
    }

    private static DefaultListableBeanFactory beansWith(String name, Object bean) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton(name, bean);
        return beans;
    }

    @Test
    void afterAnOutageAndRecoveryJunkTagsAreGoneAndHealthIsUp() {
        FlakySegmentAllocator allocator = new FlakySegmentAllocator();
        try (SegmentIdGenerators lookup = lookup(allocator)) {
            IdWorkerReporter reporter = new IdWorkerReporter(new IdWorkerSources(beansWith("segments", lookup)));
            issue(lookup, "orders");
            allocator.down(true);
            for (int i = 0; i < 50; i++) {
                String junk = "junk-" + UUID.randomUUID();
                assertThatThrownBy(() -> lookup.nextId(junk)).isInstanceOf(RuntimeException.class);
            }
            allocator.down(false);
            issue(lookup, "orders");

            assertThat(lookup.generators()).as("generators held").hasSize(1);
            assertThat(GeneratorsHealthIndicator.segments(reporter).health().getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void aFailureOfATagNobodyCallsAgainStopsCountingAfterTheWindow() {
        FlakySegmentAllocator allocator = new FlakySegmentAllocator();
        try (SegmentIdGenerators lookup = lookup(allocator)) {
            IdWorkerReporter reporter = new IdWorkerReporter(new IdWorkerSources(beansWith("segments", lookup)));
            issue(lookup, "orders");
            allocator.down(true);
            // the rest of the range in memory, then a call that finds nothing left and no load succeeding
            assertThatThrownBy(() -> {
                for (int i = 0; i < 100; i++) {
                    lookup.nextId("orders");
                }
            }).isInstanceOf(RuntimeException.class);
            // the loader thread records the failed load, and a prefetched range may still hold numbers: keep
            // calling (the store still down) until memory is empty and the failure recorded
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try {
                    lookup.nextId("orders");
                } catch (RuntimeException storeDown) {
                    // expected while the store is down
                }
                assertThat(GeneratorsHealthIndicator.segments(reporter, Clock.systemUTC()).health().getStatus())
                        .as("right after the failure").isEqualTo(Status.DOWN);
            });
            // a load the last call queued may not have reached the store yet: run after the store is back it
            // would succeed and rightly clear the failure this test looks for, so wait until none is in flight
            SegmentIdGenerator orders = (SegmentIdGenerator) lookup.generators().get("orders");
            await().atMost(Duration.ofSeconds(10)).until(() -> !orders.status().loading());
            allocator.down(false); // the store is back; nobody calls "orders" again
            Instant now = Instant.now();
            Health later = GeneratorsHealthIndicator.segments(reporter,
                    Clock.fixed(now.plus(GeneratorsHealthIndicator.FAILURE_WINDOW).plusSeconds(1), ZoneOffset.UTC))
                    .health();

            assertThat(later.getStatus()).as("a window later with no call since").isEqualTo(Status.UP);
            assertThat(((IdWorkerReport.SegmentTag) later.getDetails().get("orders")).lastFailure())
                    .as("the failure still shows, as its class and errorId (the message is in the log)")
                    .contains("Exception").contains("(errorId ").doesNotContain("unreachable");
        }
    }

    @Test
    void aReportCreatesNoLazyBean() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        AtomicInteger created = new AtomicInteger();
        RootBeanDefinition lazy = new RootBeanDefinition(SegmentIdGenerators.class, () -> {
            created.incrementAndGet();
            return lookup(new FlakySegmentAllocator());
        });
        lazy.setLazyInit(true);
        beans.registerBeanDefinition("lazySegments", lazy);

        new IdWorkerReporter(new IdWorkerSources(beans)).report();

        assertThat(created).as("beans created by one report()").hasValue(0);
    }

    @Test
    void onlyMaxTagsGeneratorsOfAModeGetMeters() {
        FlakySegmentAllocator allocator = new FlakySegmentAllocator();
        // every call must succeed: a first range of a tag may take longer than 50 ms on a loaded machine
        try (SegmentIdGenerators lookup = lookup(allocator, Duration.ofSeconds(10))) {
            for (int i = 0; i < 5; i++) {
                lookup.nextId("tag-" + i);
            }
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (IdWorkerMeters meters = new IdWorkerMeters(new IdWorkerSources(beansWith("segments", lookup)),
                    registry, 2)) {
                meters.refresh();
                meters.refresh();
                assertThat(registry.find(IdWorkerMeters.ISSUED).tags("mode", "segment").functionCounters())
                        .hasSize(2);
                assertThat(registry.find("idworker.segment.remaining").gauges()).hasSize(2);
            }
        }
    }
}
