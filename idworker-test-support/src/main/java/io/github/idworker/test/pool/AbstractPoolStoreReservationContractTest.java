package io.github.idworker.test.pool;

import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolExhaustedException;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pool store contract kit's tests of reservations, run for every store by
 * {@link AbstractPoolStoreContractTest}: those of sixteen threads over four store instances never overlap and
 * leave no hole; each is {@code chunks × step} offsets with the step its row holds in the reserving transaction;
 * none begins below {@code start-offset} or ends past the environment's largest offset, not even when sixteen
 * threads race at the end; and fewer than one chunk is refused.
 */
abstract class AbstractPoolStoreReservationContractTest extends PoolStoreKit {

    @Test
    void reservationsOfSixteenThreadsOverFourStoresNeverOverlapAndLeaveNoHole() throws Exception {
        PoolEntity entity = newEntity().build();
        List<PoolStore> stores = newStores(STORES);
        stores.get(0).register(entity, PoolEnvironment.SINGLE);
        int perThread = reservationsPerThread();
        List<List<PoolReservation>> byThread = onThreads(THREADS, t -> () -> {
            PoolStore mine = stores.get(t % STORES);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<PoolReservation> got = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                int chunks = 1 + random.nextInt(4);
                PoolReservation r = mine.reserve(entity.key(), chunks, PoolEnvironment.SINGLE);
                assertThat(r.size()).as("chunks × step").isEqualTo(chunks * 10L);
                assertThat(r.entity().key()).isEqualTo(entity.key());
                assertThat(r.entity().step()).isEqualTo(10);
                got.add(r);
            }
            return got;
        });
        List<PoolReservation> all = flatten(byThread);
        assertThat(all).hasSize(THREADS * perThread);
        long current = currentOffset(entity.key());
        assertCoverExactly(all, entity.startOffset(), current);
        assertThat(all.stream().mapToLong(PoolReservation::lastOffset).max().orElseThrow())
                .as("current-offset is the last offset reserved").isEqualTo(current);
        for (List<PoolReservation> got : byThread) {
            for (int i = 1; i < got.size(); i++) {
                assertThat(got.get(i).firstOffset()).as("each reservation lies above the ones its thread got before")
                        .isGreaterThan(got.get(i - 1).lastOffset());
            }
        }
    }

    /**
     * An operator changes the step in the table between two reservations: the next one is made with the new step,
     * and says so, because a refill chunks and shuffles by the step it reserved with.
     */
    @Test
    void aReservationUsesTheStepTheRowHoldsInItsTransaction() {
        PoolEntity entity = newEntity().step(100).build();
        PoolStore s = store.newStore();
        s.register(entity, PoolEnvironment.SINGLE);
        PoolReservation first = s.reserve(entity.key(), 2, PoolEnvironment.SINGLE);
        assertThat(first.size()).isEqualTo(200);
        assertThat(first.entity().step()).isEqualTo(100);

        store.setSetting(entity.key(), "step", 250);
        PoolReservation second = s.reserve(entity.key(), 2, PoolEnvironment.SINGLE);
        assertThat(second.entity().step()).isEqualTo(250);
        assertThat(second.size()).isEqualTo(500);
        assertThat(List.of(second.firstOffset(), second.lastOffset())).containsExactly(1_200L, 1_699L);
        assertThat(second.entity().currentOffset()).as("as read in the transaction, before this reservation")
                .isEqualTo(1_199);
        assertThat(currentOffset(entity.key())).isEqualTo(1_699);
    }

    /**
     * Environment 1 of 2 owns the odd IDs; its largest offset is the one whose ID is the largest odd long. The
     * last whole chunk below it is reserved; the next reservation fails and reserves nothing.
     */
    @Test
    void reservationsStopAtTheLargestOffsetOfTheEnvironment() {
        long max = SECOND_OF_TWO.maxOffset();
        PoolEntity entity = newEntity().startOffset(max - 2_500).step(1_000).build();
        PoolStore s = store.newStore();
        s.register(entity, SECOND_OF_TWO);
        List<PoolReservation> got = new ArrayList<>();
        PoolExhaustedException exhausted = null;
        for (int i = 0; i < 10 && exhausted == null; i++) {
            try {
                got.add(s.reserve(entity.key(), 1, SECOND_OF_TWO));
            } catch (PoolExhaustedException e) {
                exhausted = e;
            }
        }
        assertThat(exhausted).as("exhausted within 10 reservations").isNotNull();
        assertThat(exhausted.getEntity()).isEqualTo(entity.key());
        assertThat(exhausted).hasMessageContaining("'" + entity.key() + "'").hasMessageContaining(String.valueOf(max));
        assertThat(got).hasSize(2).allSatisfy(r -> assertThat(r.lastOffset()).isLessThanOrEqualTo(max));
        assertThat(SECOND_OF_TWO.id(got.get(1).lastOffset())).as("a valid ID").isPositive();
        assertCoverExactly(got, max - 2_500, max - 501);
        assertThat(currentOffset(entity.key())).as("unchanged by the failing call").isEqualTo(max - 501);
        assertThatThrownBy(() -> store.newStore().reserve(entity.key(), 5, SECOND_OF_TWO))
                .isInstanceOf(PoolExhaustedException.class);
        assertThat(currentOffset(entity.key())).isEqualTo(max - 501);
    }

    /** Offsets run up to {@code Long.MAX_VALUE} itself in a single environment, and never wrap around. */
    @Test
    void theLastChunkEndsAtTheLargestLongAndTheNextOneDoesNotWrapAround() {
        PoolEntity entity = newEntity().startOffset(Long.MAX_VALUE - 9).step(5).build();
        PoolStore s = store.newStore();
        s.register(entity, PoolEnvironment.SINGLE);
        PoolReservation first = s.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        PoolReservation last = s.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(first.firstOffset(), first.lastOffset(), last.firstOffset(), last.lastOffset()))
                .containsExactly(Long.MAX_VALUE - 9, Long.MAX_VALUE - 5, Long.MAX_VALUE - 4, Long.MAX_VALUE);
        for (int chunks : new int[] {1, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> s.reserve(entity.key(), chunks, PoolEnvironment.SINGLE))
                    .isInstanceOf(PoolExhaustedException.class);
        }
        assertThat(currentOffset(entity.key())).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void sixteenThreadsRacingAtTheEndNeverReservePastTheLargestOffset() throws Exception {
        long max = SECOND_OF_TWO.maxOffset();
        PoolEntity entity = newEntity().startOffset(max - 1_999).step(1).build();
        List<PoolStore> stores = newStores(STORES);
        stores.get(0).register(entity, SECOND_OF_TWO);
        List<List<PoolReservation>> byThread = onThreads(THREADS, t -> () -> {
            PoolStore mine = stores.get(t % STORES);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<PoolReservation> got = new ArrayList<>();
            while (true) {
                try {
                    got.add(mine.reserve(entity.key(), 1 + random.nextInt(50), SECOND_OF_TWO));
                } catch (PoolExhaustedException e) {
                    assertThat(e.getEntity()).isEqualTo(entity.key());
                    return got;
                }
            }
        });
        List<PoolReservation> all = flatten(byThread);
        assertThat(all).filteredOn(r -> r.lastOffset() > max).as("reservations past the largest offset").isEmpty();
        long current = currentOffset(entity.key());
        assertThat(current).isBetween(max - 49, max);
        assertCoverExactly(all, entity.startOffset(), current);
    }

    /**
     * An operator inserts a row whose {@code current-offset} lies below the start, or raises the start above it:
     * no reservation ever begins below the start.
     */
    @Test
    void noReservationBeginsBelowTheStartOffset() {
        PoolEntity entity = newEntity().currentOffset(3).build();
        store.insertRow(entity, PoolEnvironment.SINGLE);
        PoolStore s = store.newStore();
        PoolReservation afterLowered = s.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(afterLowered.firstOffset(), afterLowered.lastOffset())).containsExactly(1_000L, 1_009L);

        store.setSetting(entity.key(), "start-offset", 7_000);
        PoolReservation afterRaised = s.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(afterRaised.firstOffset(), afterRaised.lastOffset())).containsExactly(7_000L, 7_009L);
        assertThat(currentOffset(entity.key())).isEqualTo(7_009);
    }

    @Test
    void chunksBelowOneAreRefusedAndReserveNothing() {
        PoolEntity entity = newEntity().build();
        PoolStore s = store.newStore();
        s.register(entity, PoolEnvironment.SINGLE);
        for (int chunks : new int[] {0, -1, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> s.reserve(entity.key(), chunks, PoolEnvironment.SINGLE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chunks")
                    .hasMessageContaining(String.valueOf(chunks));
        }
        assertThat(currentOffset(entity.key())).isEqualTo(entity.startOffset() - 1);
    }
}
