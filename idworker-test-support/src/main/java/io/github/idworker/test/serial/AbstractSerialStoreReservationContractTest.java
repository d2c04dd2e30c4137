package io.github.idworker.test.serial;

import io.github.idworker.serial.SerialExhaustedException;
import io.github.idworker.serial.SerialRange;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The serial store contract kit's tests of reservations, run for every store by
 * {@link AbstractSerialStoreContractTest}: those of sixteen threads over four store instances never overlap and
 * leave no hole; periods are independent; the high-water follows the reservations; a raised start is respected;
 * and nothing is reserved past the rule's {@code max}, not even when sixteen threads race at the end, the period
 * then failing with {@link SerialExhaustedException} naming rule, period and max.
 */
abstract class AbstractSerialStoreReservationContractTest extends SerialStoreKit {

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
        assertThat(store.newStore().highWater(rule.name(), DAY_AFTER_NEXT)).isEmpty();
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
}
