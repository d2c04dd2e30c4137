package io.github.idworker.test.serial;

import io.github.idworker.IdWorkerException;
import io.github.idworker.serial.LocalSerialNumbers;
import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialPeriodMovedBackException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import io.github.idworker.serial.SerialStore;
import io.github.idworker.snowflake.MillisClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 *
 * <p>The kit is one chain, a class for each group: {@code SerialStoreKit} (the store, rule names and assertions),
 * {@code AbstractSerialStoreReservationContractTest}, {@code AbstractSerialStoreRegistrationContractTest} and this
 * class: a period an operator moved back, refused by store instances and {@link LocalSerialNumbers} nodes alike.
 */
public abstract class AbstractSerialStoreContractTest extends AbstractSerialStoreRegistrationContractTest {

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
     * lowers the period's high-water to 1 000, among numbers already handed out; a node started afterwards (a
     * restart, another process) and the running one serve 16 threads. Not one string is handed out twice: the new
     * node hands out none, every refusal is the typed one. Raising the high-water back lets a node started after
     * that hand out strings again, none of them a repeat.
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
