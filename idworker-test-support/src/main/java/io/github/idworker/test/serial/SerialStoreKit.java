package io.github.idworker.test.serial;

import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The store, fresh rule names and assertions of the serial store contract kit; the tests are in its subclasses, a
 * chain that ends in {@link AbstractSerialStoreContractTest} (see it for how a store runs the kit). Every rule a
 * test names through {@link #newRuleName()} is deleted after it, and the store is closed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class SerialStoreKit {

    /** Threads of the concurrency tests. */
    protected static final int THREADS = 16;
    /** Store instances the threads share, as that many processes over one backing store. */
    protected static final int STORES = 4;
    /** Concurrent registrations of one rule. */
    protected static final int REGISTRATIONS = 8;
    /** Today (UTC) when the test class loaded: the day the kit's daily periods count from, whatever day it runs. */
    protected static final LocalDate TODAY = LocalDate.now(ZoneOffset.UTC);
    /** A period key of a daily rule: today's. */
    protected static final String DAY = TODAY.format(DateTimeFormatter.BASIC_ISO_DATE);
    /** The period after {@link #DAY}. */
    protected static final String NEXT_DAY = TODAY.plusDays(1).format(DateTimeFormatter.BASIC_ISO_DATE);
    /** The period two days after {@link #DAY}. */
    protected static final String DAY_AFTER_NEXT = TODAY.plusDays(2).format(DateTimeFormatter.BASIC_ISO_DATE);

    /** The rules this test named, deleted after it; a test adds one it names by hand. */
    final List<String> ruleNames = new ArrayList<>();
    protected SerialStoreStore store;

    /** The store under test; called once per test. */
    protected abstract SerialStoreStore createStore() throws Exception;

    /** Reservations per thread in the tests where {@value #THREADS} threads reserve over {@value #STORES} stores. */
    protected int reservationsPerThread() {
        return 25;
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (String name : ruleNames) {
                store.deleteRule(name);
            }
        } finally {
            store.close();
        }
    }

    /** A fresh rule name, deleted after the test. */
    protected String newRuleName() {
        String name = "k-" + UUID.randomUUID().toString().substring(0, 13);
        ruleNames.add(name);
        return name;
    }

    /** A daily rule {@code ORD + yyyyMMdd + width digits} in Asia/Shanghai under a fresh name, starting at 1. */
    protected SerialRule.Builder newRule(int width) {
        return SerialRule.builder(newRuleName()).prefix("ORD").datePattern("yyyyMMdd").width(width)
                .reset(SerialReset.DAILY).zone("Asia/Shanghai");
    }

    /** {@code count} independent store instances over the backing store. */
    protected List<SerialStore> newStores(int count) {
        List<SerialStore> stores = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            stores.add(store.newStore());
        }
        return stores;
    }

    /**
     * Asserts that {@code ranges}, all of {@code rule} and {@code period}, hold every number from {@code first}
     * to {@code last} exactly once: no number twice, no hole.
     */
    protected static void assertCoverExactly(Collection<SerialRange> ranges, SerialRule rule, String period,
                                             long first, long last) {
        assertThat(ranges).allSatisfy(r -> {
            assertThat(r.rule()).isEqualTo(rule.name());
            assertThat(r.period()).isEqualTo(period);
        });
        long[] numbers = ranges.stream().flatMapToLong(r -> LongStream.rangeClosed(r.first(), r.last())).sorted()
                .toArray();
        for (int i = 0; i < numbers.length; i++) {
            if (i > 0 && numbers[i] == numbers[i - 1]) {
                fail("number %d of rule %s, period %s was reserved twice", numbers[i], rule.name(), period);
            }
            if (numbers[i] != first + i) {
                fail("hole: numbers %d to %d of rule %s, period %s were never reserved", first + i, numbers[i] - 1,
                        rule.name(), period);
            }
        }
        assertThat(numbers.length).as("numbers reserved in %s..%s", first, last).isEqualTo(last - first + 1);
    }

    /** Runs {@code task.apply(i)} on {@code threads} threads released together and returns their results in order. */
    protected <T> List<T> onThreads(int threads, IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<T> work = task.apply(i);
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return work.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(100, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    static <T> List<T> flatten(List<List<T>> lists) {
        List<T> all = new ArrayList<>();
        lists.forEach(all::addAll);
        return all;
    }
}
