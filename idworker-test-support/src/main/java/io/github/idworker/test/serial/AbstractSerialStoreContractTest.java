package io.github.idworker.test.serial;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialReset;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.snowflake.MillisClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The contract every {@link SerialStore} keeps, run against a real store. A store's test extends this class and
 * returns its store from {@link #createStore()}; nothing else is needed, for example
 * {@code class MyDbSerialStoreTest extends AbstractSerialStoreContractTest { protected SerialStoreStore
 * createStore() { return new MyDbStore(); } }}.
 *
 * <p>What it checks: reservations of one (rule, period) never overlap and leave no hole from the rule's
 * {@code start}, whichever of several store instances made them and however many threads race; periods are
 * independent; nothing is ever reserved past the rule's {@code max}, and the period then fails with
 * {@link SerialExhaustedException} naming rule, period and max; registration is idempotent under concurrent
 * registrations, the stored rule wins over changed tunables and a changed shape is refused naming the field; a
 * period whose high-water an operator lowered by hand ({@link SerialStoreStore#editHighWater}) is refused with
 * {@link SerialPeriodMovedBackException} by every store instance, fresh ones and {@link LocalSerialNumbers} nodes
 * started afterwards included, until the high-water is raised again.
 *
 * <p>Each test uses fresh random rule names and deletes them afterwards. Concurrency tests run
 * {@value #THREADS} threads over {@value #STORES} store instances, as several processes would.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractSerialStoreContractTest {

    /** Threads of the concurrency tests. */
    protected static final int THREADS = 16;
    /** Store instances the threads share, as that many processes over one backing store. */
    protected static final int STORES = 4;
    /** Concurrent registrations of one rule. */
    protected static final int REGISTRATIONS = 8;
    /** A period key of a daily rule. */
    protected static final String DAY = "20261123";
    /** The period after {@link #DAY}. */
    protected static final String NEXT_DAY = "20261124";

    private final List<String> ruleNames = new ArrayList<>();
    protected SerialStoreStore store;

    /** The store under test; called once per test. */
    protected abstract SerialStoreStore createStore() throws Exception;

    /** Reservations per thread in {@link #reservationsOfSixteenThreadsOverFourStoresNeverOverlapAndLeaveNoHole()}. */
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

    private static <T> List<T> flatten(List<List<T>> lists) {
        List<T> all = new ArrayList<>();
        lists.forEach(all::addAll);
        return all;
    }

    @Test
    void reservationsOfSixteenThreadsOverFourStoresNeverOverlapAndLeaveNoHole() throws Exception {
        SerialRule rule = newRule(12).start(1_000).maxBatch(500).build();
        List<SerialStore> stores = newStores(STORES);
        stores.get(0).register(rule);
        int perThread = reservationsPerThread();
        List<List<SerialRange>> byThread = onThreads(THREADS, t -> () -> {
            SerialStore mine = stores.get(t % STORES);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<SerialRange> got = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                int count = 1 + random.nextInt(100);
                SerialRange range = mine.reserve(rule, DAY, count);
                assertThat(range.size()).as("far below max, every reservation is whole").isEqualTo(count);
                if (!got.isEmpty()) {
                    assertThat(range.first()).as("each range lies above the ones this thread got before")
                            .isGreaterThan(got.get(got.size() - 1).last());
                }
                got.add(range);
            }
            return got;
        });
        List<SerialRange> all = flatten(byThread);
        assertThat(all).hasSize(THREADS * perThread);
        long highWater = store.newStore().highWater(rule.name(), DAY).orElseThrow();
        assertCoverExactly(all, rule, DAY, rule.start(), highWater);
    }

    /**
     * Rule names are case-sensitive, as the Redis keys built from them are: {@code order} and {@code Order} are
     * two rules with two high-waters (a case-insensitive collation, MySQL's default, would merge them).
     */
    @Test
    void ruleNamesDifferingOnlyInCaseAreTwoRules() {
        String lower = newRuleName();
        String upper = lower.toUpperCase(java.util.Locale.ROOT);
        ruleNames.add(upper);
        SerialStore s = store.newStore();
        SerialRule a = s.register(SerialRule.builder(lower).prefix("A").width(6).build());
        SerialRule b = s.register(SerialRule.builder(upper).prefix("B").width(6).build());
        assertThat(b.name()).isEqualTo(upper);
        assertThat(b.prefix()).isEqualTo("B");
        assertThat(s.find(lower).orElseThrow().prefix()).isEqualTo("A");
        assertThat(s.reserve(a, "all", 5)).isEqualTo(new SerialRange(lower, "all", 1, 5));
        assertThat(s.reserve(b, "all", 3)).isEqualTo(new SerialRange(upper, "all", 1, 3));
        assertThat(s.highWater(lower, "all")).hasValue(5);
        assertThat(s.highWater(upper, "all")).hasValue(3);
    }

    @Test
    void periodsAreIndependent() throws Exception {
        SerialRule rule = newRule(6).build();
        List<SerialStore> stores = newStores(STORES);
        stores.get(0).register(rule);
        assertThat(stores.get(0).reserve(rule, DAY, 5)).isEqualTo(new SerialRange(rule.name(), DAY, 1, 5));
        assertThat(stores.get(1).reserve(rule, NEXT_DAY, 3)).isEqualTo(new SerialRange(rule.name(), NEXT_DAY, 1, 3));
        assertThat(stores.get(2).reserve(rule, DAY, 2)).isEqualTo(new SerialRange(rule.name(), DAY, 6, 7));

        List<List<SerialRange>> byThread = onThreads(THREADS, t -> () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<SerialRange> got = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                got.add(stores.get((t + i) % STORES).reserve(rule, (t + i) % 2 == 0 ? DAY : NEXT_DAY,
                        1 + random.nextInt(20)));
            }
            return got;
        });
        List<SerialRange> all = new ArrayList<>(flatten(byThread));
        all.add(new SerialRange(rule.name(), DAY, 1, 7));
        all.add(new SerialRange(rule.name(), NEXT_DAY, 1, 3));
        for (String period : List.of(DAY, NEXT_DAY)) {
            long highWater = store.newStore().highWater(rule.name(), period).orElseThrow();
            assertCoverExactly(all.stream().filter(r -> r.period().equals(period)).toList(), rule, period, 1,
                    highWater);
        }
        assertThat(store.newStore().highWater(rule.name(), "20261125")).isEmpty();
    }

    @Test
    void theLastReservationEndsExactlyAtMaxThenThePeriodIsExhausted() {
        SerialRule rule = newRule(3).max(25).build();
        SerialStore first = store.newStore();
        SerialStore second = store.newStore();
        first.register(rule);
        assertThat(first.reserve(rule, DAY, 10)).isEqualTo(new SerialRange(rule.name(), DAY, 1, 10));
        assertThat(second.reserve(rule, DAY, 10)).isEqualTo(new SerialRange(rule.name(), DAY, 11, 20));
        assertThat(first.reserve(rule, DAY, 10)).as("cut at max").isEqualTo(new SerialRange(rule.name(), DAY, 21, 25));
        for (SerialStore s : List.of(first, second)) {
            assertThatThrownBy(() -> s.reserve(rule, DAY, 1))
                    .isInstanceOfSatisfying(SerialExhaustedException.class, e -> {
                        assertThat(e.getRule()).isEqualTo(rule.name());
                        assertThat(e.getPeriod()).isEqualTo(DAY);
                        assertThat(e.getMax()).isEqualTo(25);
                    })
                    .hasMessageContaining("'" + rule.name() + "'")
                    .hasMessageContaining(DAY)
                    .hasMessageContaining("25");
        }
        assertThat(second.highWater(rule.name(), DAY)).hasValue(25);
        assertThat(second.reserve(rule, NEXT_DAY, 4)).as("the next period starts over")
                .isEqualTo(new SerialRange(rule.name(), NEXT_DAY, 1, 4));

        SerialRule lowered = rule.toBuilder().max(20).build();
        assertThatThrownBy(() -> first.reserve(lowered, DAY, 1)).as("a max lowered below the high-water")
                .isInstanceOfSatisfying(SerialExhaustedException.class, e -> assertThat(e.getMax()).isEqualTo(20));
        SerialRule raised = rule.toBuilder().max(30).build();
        assertThatThrownBy(() -> first.reserve(raised, DAY, 1)).as("a caller's max above the store's")
                .isInstanceOfSatisfying(SerialExhaustedException.class, e -> assertThat(e.getMax()).isEqualTo(25));
        store.setLimits(rule.name(), rule.start(), 30);
        assertThatThrownBy(() -> first.reserve(rule, DAY, 1)).as("a caller's lower max is obeyed too")
                .isInstanceOf(SerialExhaustedException.class);
        assertThat(first.reserve(raised, DAY, 10)).as("a raised max continues above the high-water")
                .isEqualTo(new SerialRange(rule.name(), DAY, 26, 30));
        assertThat(first.highWater(rule.name(), DAY)).hasValue(30);
        store.setLimits(rule.name(), rule.start(), 28);
        assertThat(second.reserve(raised, NEXT_DAY, 100)).as("a max an operator lowered counts at once")
                .isEqualTo(new SerialRange(rule.name(), NEXT_DAY, 5, 28));
    }

    @Test
    void sixteenThreadsRacingAtTheEndNeverReservePastMax() throws Exception {
        SerialRule rule = newRule(4).max(2_000).build();
        List<SerialStore> stores = newStores(STORES);
        stores.get(0).register(rule);
        List<List<SerialRange>> byThread = onThreads(THREADS, t -> () -> {
            SerialStore mine = stores.get(t % STORES);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<SerialRange> got = new ArrayList<>();
            while (true) {
                try {
                    got.add(mine.reserve(rule, DAY, 1 + random.nextInt(50)));
                } catch (SerialExhaustedException e) {
                    assertThat(e.getRule()).isEqualTo(rule.name());
                    assertThat(e.getPeriod()).isEqualTo(DAY);
                    assertThat(e.getMax()).isEqualTo(2_000);
                    return got;
                }
            }
        });
        List<SerialRange> all = flatten(byThread);
        assertThat(all).filteredOn(r -> r.last() > 2_000).as("ranges reaching past max 2000").isEmpty();
        assertThat(all).filteredOn(r -> r.last() == 2_000).as("one range ends at max").hasSize(1);
        assertCoverExactly(all, rule, DAY, 1, 2_000);
        assertThat(store.newStore().highWater(rule.name(), DAY)).hasValue(2_000);
        assertThatThrownBy(() -> store.newStore().reserve(rule, DAY, 1)).isInstanceOf(SerialExhaustedException.class);
    }

    @Test
    void registrationIsIdempotentUnderEightConcurrentRegistrations() throws Exception {
        SerialRule rule = newRule(6).build();
        List<SerialStore> stores = newStores(REGISTRATIONS);
        List<SerialRule> held = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(rule));
        assertThat(held).hasSize(REGISTRATIONS).allSatisfy(h -> assertThat(h).isEqualTo(rule));
        assertThat(store.newStore().find(rule.name())).contains(rule);
        assertThat(store.newStore().register(rule)).isEqualTo(rule);

        String name = newRuleName();
        List<SerialRule> proposals = new ArrayList<>();
        for (int i = 0; i < REGISTRATIONS; i++) {
            proposals.add(SerialRule.builder(name).prefix("ORD").datePattern("yyyyMMdd").width(6)
                    .reset(SerialReset.DAILY).zone("Asia/Shanghai").max(900_000 + i).critical(i).build());
        }
        List<SerialRule> winners = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(proposals.get(t)));
        assertThat(new HashSet<>(winners)).as("every registration returns the one rule stored").hasSize(1);
        assertThat(proposals).contains(winners.get(0));
        assertThat(store.newStore().find(name)).contains(winners.get(0));
    }

    @Test
    void theStoredRuleWinsOverChangedTunables() {
        SerialRule rule = newRule(6).start(10).max(5_000).critical(20).minBatch(30).maxBatch(400).build();
        store.newStore().register(rule);
        SerialRule tuned = rule.toBuilder().start(1).max(999_999).critical(5).minBatch(10).maxBatch(20).build();
        SerialRule held = store.newStore().register(tuned);
        assertThat(held).isEqualTo(rule);
        assertThat(List.of(held.start(), held.max(), (long) held.critical(), (long) held.minBatch(),
                (long) held.maxBatch())).containsExactly(10L, 5_000L, 20L, 30L, 400L);
        assertThat(store.newStore().find(rule.name())).contains(rule);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"prefix", "date-pattern", "width", "reset", "zone"})
    void aChangedShapeFieldIsRefusedNamingItsProperty(String field) {
        SerialRule rule = newRule(6).build();
        store.newStore().register(rule);
        SerialRule.Builder changed = rule.toBuilder();
        switch (field) {
            case "prefix" -> changed.prefix("INV");
            case "date-pattern" -> changed.datePattern("ddMMyyyy");
            case "width" -> changed.width(7);
            case "reset" -> changed.reset(SerialReset.MONTHLY);
            case "zone" -> changed.zone("Europe/Berlin");
            default -> throw new IllegalArgumentException(field);
        }
        SerialRule other = changed.build();
        assertThat(rule.shapeDifferences(other)).containsExactly(field);
        assertThatThrownBy(() -> store.newStore().register(other))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(SerialRule.property(rule.name(), field)))
                .hasMessageContaining("'" + rule.valueOf(field) + "'")
                .hasMessageContaining("'" + other.valueOf(field) + "'");
        assertThat(store.newStore().find(rule.name())).as("the stored rule is unchanged").contains(rule);
    }

    /**
     * The rule's record is lost while the high-waters of its periods survive, and the next deployment configures
     * another reset with the same prefix and date pattern. The new reset's periods have no high-water, so
     * numbering would start again at 1 and print strings of the past again (a daily rule turned monthly prints
     * the same date): the registration is refused naming {@code reset}; the rule as it was registers again and
     * continues above its high-water.
     */
    @ParameterizedTest(name = "{0} to {1}")
    @CsvSource({"daily, monthly", "daily, never", "never, daily", "monthly, yearly"})
    void aRuleWhoseRecordWasLostCannotComeBackWithAnotherReset(String before, String after) {
        SerialRule rule = newRule(6).reset(SerialReset.parse(before)).build();
        SerialRule changed = rule.toBuilder().reset(SerialReset.parse(after)).build();
        LocalDate day = LocalDate.of(2026, 11, 23);
        String period = rule.reset().period(day);
        store.newStore().register(rule);
        assertThat(store.newStore().reserve(rule, period, 10).last()).isEqualTo(10);

        store.deleteRuleRecordOnly(rule.name());
        assertThatThrownBy(() -> store.newStore().register(changed))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(SerialRule.property(rule.name(), "reset")))
                .hasMessageContaining("'" + after + "'").hasMessageContaining("'" + before + "'")
                .hasMessageContaining("'" + period + "'");
        assertThat(store.newStore().find(rule.name())).as("nothing registered").isEmpty();

        assertThat(store.newStore().register(rule)).isEqualTo(rule);
        assertThat(store.newStore().reserve(rule, period, 1).first()).as("numbering continues above").isEqualTo(11);
    }

    @Test
    void findOfAnUnknownRuleIsEmpty() {
        String name = newRuleName();
        assertThat(store.newStore().find(name)).isEmpty();
        assertThat(store.newStore().highWater(name, DAY)).isEmpty();
    }

    @Test
    void theHighWaterReflectsReservations() {
        SerialRule rule = newRule(6).build();
        SerialStore first = store.newStore();
        SerialStore second = store.newStore();
        first.register(rule);
        assertThat(first.highWater(rule.name(), DAY)).isEmpty();
        assertThat(first.reserve(rule, DAY, 10).last()).isEqualTo(10);
        assertThat(second.highWater(rule.name(), DAY)).hasValue(10);
        assertThat(second.reserve(rule, DAY, 5).last()).isEqualTo(15);
        assertThat(first.highWater(rule.name(), DAY)).hasValue(15);
        assertThat(first.highWater(rule.name(), NEXT_DAY)).isEmpty();

        assertThatThrownBy(() -> first.reserve(rule, NEXT_DAY, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count");
        assertThatThrownBy(() -> first.reserve(rule, DAY, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(first.highWater(rule.name(), NEXT_DAY)).as("a refused reservation stores nothing").isEmpty();
        assertThat(first.highWater(rule.name(), DAY)).hasValue(15);
    }

    @Test
    void aStartRaisedAfterAPeriodOpenedIsRespected() {
        SerialRule rule = newRule(6).build();
        SerialStore first = store.newStore();
        SerialStore second = store.newStore();
        first.register(rule);
        assertThat(first.reserve(rule, DAY, 10)).isEqualTo(new SerialRange(rule.name(), DAY, 1, 10));
        SerialRule raised = rule.toBuilder().start(500).build();
        assertThat(second.reserve(raised, DAY, 5)).isEqualTo(new SerialRange(rule.name(), DAY, 500, 504));
        assertThat(first.reserve(rule, DAY, 3)).as("a start below the high-water changes nothing")
                .isEqualTo(new SerialRange(rule.name(), DAY, 505, 507));
        assertThat(second.highWater(rule.name(), DAY)).hasValue(507);
        assertThat(second.reserve(raised, NEXT_DAY, 2)).as("a new period begins at the raised start")
                .isEqualTo(new SerialRange(rule.name(), NEXT_DAY, 500, 501));
    }

    /** Asserts that {@code e} refuses (rule, period) naming them, the store and both values. */
    protected static void assertMovedBack(Throwable e, SerialRule rule, String period, long highWater,
                                          long reservedTo) {
        assertThat(e).isInstanceOfSatisfying(SerialPeriodMovedBackException.class, m -> {
            assertThat(m.getRule()).isEqualTo(rule.name());
            assertThat(m.getPeriod()).isEqualTo(period);
            assertThat(m.getHighWater()).isEqualTo(highWater);
            assertThat(m.getReservedTo()).isEqualTo(reservedTo);
            assertThat(m.getTable()).isNotBlank();
            assertThat(m.getMessage()).contains("'" + rule.name() + "'", period, m.getTable(),
                    "high_water " + highWater, "reserved_to " + reservedTo,
                    "raise high_water to at least " + reservedTo);
        });
    }

    /**
     * An operator lowers a period's high-water by half. The store that made the reservations and new ones (a
     * restart, another node) all refuse the period with the typed exception and change nothing; other periods
     * go on; registering the rule again does not reset it; raising the high-water back is the recovery, and one
     * raised above it (numbers skipped on purpose) is where reservations continue.
     */
    @Test
    void aPeriodMovedBackIsRefusedByEveryStoreUntilItsHighWaterIsRaisedAgain() {
        SerialRule rule = newRule(6).build();
        SerialStore running = store.newStore();
        running.register(rule);
        for (int i = 0; i < 10; i++) {
            running.reserve(rule, DAY, 10);
        }
        store.editHighWater(rule.name(), DAY, 50);
        for (SerialStore s : List.of(running, store.newStore(), store.newStore())) {
            assertThatThrownBy(() -> s.reserve(rule, DAY, 10)).satisfies(e -> assertMovedBack(e, rule, DAY, 50, 100));
            assertThatThrownBy(() -> s.reserve(rule, DAY, 1)).isInstanceOf(SerialPeriodMovedBackException.class);
        }
        assertThat(store.newStore().highWater(rule.name(), DAY)).as("nothing reserved by a refusal").hasValue(50);
        assertThat(store.newStore().reserve(rule, NEXT_DAY, 5)).as("another period goes on")
                .isEqualTo(new SerialRange(rule.name(), NEXT_DAY, 1, 5));
        assertThat(store.newStore().register(rule)).isEqualTo(rule);
        assertThat(store.newStore().highWater(rule.name(), DAY)).hasValue(50);

        store.editHighWater(rule.name(), DAY, 100); // the recovery: high_water back to at least reserved_to
        assertThat(store.newStore().reserve(rule, DAY, 10)).isEqualTo(new SerialRange(rule.name(), DAY, 101, 110));
        store.editHighWater(rule.name(), DAY, 500); // numbers skipped on purpose: allowed
        assertThat(running.reserve(rule, DAY, 10)).isEqualTo(new SerialRange(rule.name(), DAY, 501, 510));
        store.editHighWater(rule.name(), DAY, 505); // below the reservation just made
        assertThatThrownBy(() -> store.newStore().reserve(rule, DAY, 1))
                .satisfies(e -> assertMovedBack(e, rule, DAY, 505, 510));
        SerialRule raised = rule.toBuilder().start(600).build(); // a start above reserved_to reserves above it
        assertThat(store.newStore().reserve(raised, DAY, 5)).isEqualTo(new SerialRange(rule.name(), DAY, 600, 604));
    }

    /**
     * 16 threads over four store instances reserve while an operator moves the period back to half of where it
     * stood: every range reserved, before and after, is unique, and every refusal is the typed one.
     */
    @Test
    void aPeriodMovedBackWhileSixteenThreadsReserveNeverYieldsAnOverlappingRange() throws Exception {
        SerialRule rule = newRule(9).maxBatch(500).build();
        List<SerialStore> stores = newStores(STORES);
        stores.get(0).register(rule);
        AtomicLong movedTo = new AtomicLong(-1);
        AtomicInteger refusals = new AtomicInteger();
        int perThread = reservationsPerThread();
        List<List<SerialRange>> byThread = onThreads(THREADS, t -> () -> {
            SerialStore mine = stores.get(t % STORES);
            List<SerialRange> got = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                if (i == perThread / 2 && movedTo.get() < 0) {
                    synchronized (movedTo) {
                        if (movedTo.get() < 0) {
                            long half = store.newStore().highWater(rule.name(), DAY).orElseThrow() / 2;
                            store.editHighWater(rule.name(), DAY, half);
                            movedTo.set(half);
                        }
                    }
                }
                try {
                    got.add(mine.reserve(rule, DAY, 10));
                } catch (SerialPeriodMovedBackException e) {
                    assertThat(e.getRule()).isEqualTo(rule.name());
                    refusals.incrementAndGet();
                }
            }
            return got;
        });
        List<SerialRange> all = flatten(byThread);
        long[] numbers = all.stream().flatMapToLong(r -> LongStream.rangeClosed(r.first(), r.last())).sorted()
                .toArray();
        for (int i = 1; i < numbers.length; i++) {
            if (numbers[i] == numbers[i - 1]) {
                fail("number %d of rule %s, period %s was reserved twice (moved back to %d)", numbers[i],
                        rule.name(), DAY, movedTo.get());
            }
        }
        assertThat(refusals.get()).as("reservations after the period moved back").isPositive();
        assertThat(store.newStore().highWater(rule.name(), DAY)).hasValue(movedTo.get());
    }

    /**
     * End to end: a {@link LocalSerialNumbers} node hands out 2 000 strings (numbers 1 to 2 000); an operator
     * lowers the period's high-water to 1 000, among numbers already handed out; a node started afterwards (a restart, another process) and the running one serve 16 threads. Not
     * one string is handed out twice: the new node hands out none, every refusal is the typed one. Raising the
     * high-water back lets a node started after that hand out strings again, none of them a repeat.
     */
    @Test
    void localSerialsOfANodeStartedAfterThePeriodMovedBackRepeatNoStringOnSixteenThreads() throws Exception {
        SerialRule rule = newRule(9).minBatch(50).maxBatch(50).critical(10).build();
        store.newStore().register(rule);
        long now = System.currentTimeMillis();
        MillisClock clock = () -> now; // one day throughout: the test is about the period, not about midnight
        String period = rule.period(rule.date(now));
        Set<String> issued = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<String> repeats = new ConcurrentLinkedQueue<>();
        try (LocalSerialNumbers running = localNode(clock)) {
            for (int i = 0; i < 2_000; i++) {
                issued.add(running.next(rule.name()));
            }
            long highWater = store.newStore().highWater(rule.name(), period).orElseThrow(); // or a range less
            long movedTo = 1_000; // below numbers handed out already, wherever the ranges loaded ahead end
            store.editHighWater(rule.name(), period, movedTo);
            AtomicInteger freshIssued = new AtomicInteger();
            ConcurrentLinkedQueue<IdWorkerException> failures = new ConcurrentLinkedQueue<>();
            try (LocalSerialNumbers fresh = localNode(clock)) {
                onThreads(THREADS, t -> () -> {
                    boolean onFresh = t % 2 == 0;
                    LocalSerialNumbers node = onFresh ? fresh : running;
                    for (int i = 0; i < 500; i++) {
                        String serial;
                        try {
                            serial = node.next(rule.name());
                        } catch (IdWorkerException e) {
                            failures.add(e);
                            continue;
                        }
                        if (onFresh) {
                            freshIssued.incrementAndGet();
                        }
                        if (!issued.add(serial)) {
                            repeats.add(serial);
                        }
                    }
                    return null;
                });
            }
            System.out.printf("period %s moved back from %d to %d: %d strings issued in all, %d repeated, %d by the "
                    + "fresh node, %d refusals%n", period, highWater, movedTo, issued.size() + repeats.size(),
                    repeats.size(), freshIssued.get(), failures.size());
            assertThat(repeats).as("strings handed out twice").isEmpty();
            assertThat(freshIssued.get()).as("strings the fresh node handed out").isZero();
            assertThat(failures).isNotEmpty();
            long reservedTo = highWater;
            for (IdWorkerException e : failures) {
                // a range the running node reserved ahead may have landed after highWater was read
                assertThat(e).isInstanceOf(SerialPeriodMovedBackException.class);
                reservedTo = Math.max(reservedTo, ((SerialPeriodMovedBackException) e).getReservedTo());
                assertMovedBack(e, rule, period, movedTo, ((SerialPeriodMovedBackException) e).getReservedTo());
            }
            assertThat(store.newStore().highWater(rule.name(), period)).hasValue(movedTo);

            store.editHighWater(rule.name(), period, reservedTo); // the recovery
            try (LocalSerialNumbers after = localNode(clock)) {
                for (int i = 0; i < 200; i++) {
                    String serial = after.next(rule.name());
                    assertThat(issued.add(serial)).as("%s handed out before", serial).isTrue();
                }
            }
        }
    }

    /** A {@link LocalSerialNumbers} node of its own store instance and rule lookup, as another process. */
    private LocalSerialNumbers localNode(MillisClock clock) {
        SerialStore mine = store.newStore();
        return new LocalSerialNumbers(mine, new SerialRules(mine, Duration.ofMinutes(5)), clock);
    }
}
