package io.github.idworker.test.pool;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pool store contract kit's tests of registration and lookup, run for every store by
 * {@link AbstractPoolStoreContractTest}: registration is idempotent under eight concurrent registrations and the
 * stored row wins over changed settings; keys differing only in case are two entities; find and findAll return
 * the rows as stored; and a row is pinned to the first environment that registers or reserves it, refusing any
 * other without reserving anything.
 */
abstract class AbstractPoolStoreRegistrationContractTest extends AbstractPoolStoreReservationContractTest {

    /**
     * Entity keys are case-sensitive, as the Redis keys built from them are: {@code order} and {@code Order} are
     * two entities with two offsets (a case-insensitive collation, MySQL's default, would merge them).
     */
    @Test
    void entityKeysDifferingOnlyInCaseAreTwoEntities() {
        String lower = newKey();
        String upper = lower.toUpperCase(Locale.ROOT);
        keys.add(upper);
        PoolStore s = store.newStore();
        s.register(PoolEntity.builder(lower).step(5).build(), PoolEnvironment.SINGLE);
        PoolEntity b = s.register(PoolEntity.builder(upper).step(7).build(), PoolEnvironment.SINGLE);
        assertThat(b.key()).isEqualTo(upper);
        assertThat(b.step()).isEqualTo(7);
        assertThat(s.find(lower).orElseThrow().step()).isEqualTo(5);
        PoolReservation a = s.reserve(lower, 1, PoolEnvironment.SINGLE);
        assertThat(List.of(a.firstOffset(), a.lastOffset())).containsExactly(1L, 5L);
        PoolReservation u = s.reserve(upper, 1, PoolEnvironment.SINGLE);
        assertThat(List.of(u.firstOffset(), u.lastOffset())).containsExactly(1L, 7L);
        assertThat(currentOffset(lower)).isEqualTo(5);
        assertThat(currentOffset(upper)).isEqualTo(7);
    }

    @Test
    void registrationIsIdempotentUnderEightConcurrentRegistrations() throws Exception {
        PoolEntity entity = newEntity().build();
        List<PoolStore> stores = newStores(REGISTRATIONS);
        List<PoolEntity> held = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(entity,
                PoolEnvironment.SINGLE));
        assertThat(held).hasSize(REGISTRATIONS).allSatisfy(h -> assertThat(h).isEqualTo(entity));
        assertThat(entity.currentOffset()).as("nothing reserved yet").isEqualTo(entity.startOffset() - 1);
        assertThat(store.newStore().find(entity.key())).contains(entity);
        assertThat(store.newStore().register(entity, PoolEnvironment.SINGLE)).isEqualTo(entity);

        String key = newKey();
        List<PoolEntity> proposals = new ArrayList<>();
        for (int i = 0; i < REGISTRATIONS; i++) {
            proposals.add(PoolEntity.builder(key).step(100 + i).maxPerSecond(6_000 + i).build());
        }
        List<PoolEntity> winners = onThreads(REGISTRATIONS, t -> () -> stores.get(t).register(proposals.get(t),
                PoolEnvironment.SINGLE));
        assertThat(new HashSet<>(winners)).as("every registration returns the one entity stored").hasSize(1);
        assertThat(proposals).contains(winners.get(0));
        assertThat(store.newStore().find(key)).contains(winners.get(0));
    }

    @Test
    void theStoredRowWinsOverChangedSettingsAndIsReturned() {
        PoolEntity entity = newEntity().type(IncreasingType.TREND).step(100).maxPerRequest(50).maxPerSecond(2_000)
                .thresholdPercent(60).checkInterval(Duration.ofMillis(250)).maxPoolSize(10_000).build();
        store.newStore().register(entity, PoolEnvironment.SINGLE);
        PoolReservation first = store.newStore().reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(first.firstOffset(), first.lastOffset())).containsExactly(1_000L, 1_099L);

        PoolEntity changed = entity.toBuilder().name("invoices").type(IncreasingType.MONOTONIC).startOffset(1)
                .step(200).maxPerRequest(70).maxPerSecond(3_000).thresholdPercent(50)
                .checkInterval(Duration.ofSeconds(2)).maxPoolSize(20_000).maxGap(3).build();
        PoolEntity held = store.newStore().register(changed, PoolEnvironment.SINGLE);
        assertThat(held.sameSettings(entity)).as("the row's settings, not the configured ones: %s", held).isTrue();
        assertThat(held.currentOffset()).as("with the row's current-offset").isEqualTo(1_099);
        assertThat(store.newStore().find(entity.key())).contains(held);
        PoolReservation next = store.newStore().reserve(entity.key(), 2, PoolEnvironment.SINGLE);
        assertThat(List.of(next.firstOffset(), next.lastOffset())).as("by the row's step")
                .containsExactly(1_100L, 1_299L);
    }

    @Test
    void findAllReturnsEveryEntityWithItsSettingsByKey() {
        PoolEntity a = newEntity().name("orders").build();
        PoolEntity b = newEntity().name("invoices").type(IncreasingType.TREND).step(500).maxPerRequest(20)
                .maxPerSecond(100).thresholdPercent(30).checkInterval(Duration.ofMillis(50)).maxPoolSize(1_000)
                .build();
        PoolEntity c = newEntity().name("users").startOffset(0).maxGap(7).build();
        PoolStore s = store.newStore();
        for (PoolEntity e : List.of(a, b, c)) {
            s.register(e, PoolEnvironment.SINGLE);
        }
        s.reserve(b.key(), 3, PoolEnvironment.SINGLE);
        PoolEntity bAfter = b.toBuilder().currentOffset(b.startOffset() - 1 + 1_500).build();
        List<PoolEntity> mine = store.newStore().findAll().stream().filter(e -> keys.contains(e.key())).toList();
        assertThat(mine).containsExactlyElementsOf(List.of(a, bAfter, c).stream()
                .sorted(Comparator.comparing(PoolEntity::key)).toList());
    }

    @Test
    void findOfAnUnknownEntityIsEmpty() {
        assertThat(store.newStore().find(newKey())).isEmpty();
    }

    @Test
    void aRowPinnedToAnotherEnvironmentIsRefusedAndNothingIsReserved() {
        PoolEntity entity = newEntity().build();
        PoolStore first = store.newStore();
        PoolStore second = store.newStore();
        first.register(entity, FIRST_OF_TWO);
        first.reserve(entity.key(), 3, FIRST_OF_TWO);
        long before = currentOffset(entity.key());
        assertThat(before).isEqualTo(1_029);

        for (PoolEnvironment other : List.of(SECOND_OF_TWO, new PoolEnvironment(0, 3), PoolEnvironment.SINGLE)) {
            assertThatThrownBy(() -> second.register(entity, other)).as("register with %s", other)
                    .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                            .isEqualTo(PoolEnvironment.ENVIRONMENT_PROPERTY))
                    .hasMessageContaining("'" + entity.key() + "'")
                    .hasMessageContaining(FIRST_OF_TWO.toString())
                    .hasMessageContaining(other.toString());
            assertThatThrownBy(() -> second.reserve(entity.key(), 1, other)).as("reserve with %s", other)
                    .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                            .isEqualTo(PoolEnvironment.ENVIRONMENT_PROPERTY))
                    .hasMessageContaining(FIRST_OF_TWO.toString());
            assertThat(currentOffset(entity.key())).as("nothing reserved").isEqualTo(before);
        }
        PoolReservation r = second.reserve(entity.key(), 1, FIRST_OF_TWO);
        assertThat(List.of(r.firstOffset(), r.lastOffset())).as("its own environment goes on")
                .containsExactly(1_030L, 1_039L);
    }

    /** A row an operator inserted without an environment is pinned by its first reservation, or registration. */
    @Test
    void aRowWithoutEnvironmentIsPinnedByItsFirstUse() {
        PoolEntity reserved = newEntity().build();
        store.insertRow(reserved, null);
        PoolStore s = store.newStore();
        assertThat(s.find(reserved.key())).as("read as it is, not pinned by a read").contains(reserved);
        PoolReservation r = s.reserve(reserved.key(), 1, SECOND_OF_TWO);
        assertThat(List.of(r.firstOffset(), r.lastOffset())).containsExactly(1_000L, 1_009L);
        assertThatThrownBy(() -> store.newStore().reserve(reserved.key(), 1, FIRST_OF_TWO))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(PoolEnvironment.ENVIRONMENT_PROPERTY));
        assertThat(store.newStore().register(reserved, SECOND_OF_TWO).currentOffset()).isEqualTo(1_009);

        PoolEntity registered = newEntity().currentOffset(4_999).build();
        store.insertRow(registered, null);
        assertThat(store.newStore().register(registered.toBuilder().step(20).build(), FIRST_OF_TWO))
                .as("the row as the operator inserted it").isEqualTo(registered);
        assertThatThrownBy(() -> store.newStore().reserve(registered.key(), 1, SECOND_OF_TWO))
                .isInstanceOf(IdWorkerConfigurationException.class);
        PoolReservation next = store.newStore().reserve(registered.key(), 1, FIRST_OF_TWO);
        assertThat(List.of(next.firstOffset(), next.lastOffset())).containsExactly(5_000L, 5_009L);
    }

    /** Many first reservations race on a row without environment: one environment wins, the other is refused. */
    @Test
    void racingFirstReservationsPinARowOnce() throws Exception {
        PoolEntity entity = newEntity().build();
        store.insertRow(entity, null);
        List<PoolStore> stores = newStores(STORES);
        List<Object> outcomes = onThreads(THREADS, t -> () -> {
            PoolEnvironment mine = t % 2 == 0 ? FIRST_OF_TWO : SECOND_OF_TWO;
            try {
                return (Object) stores.get(t % STORES).reserve(entity.key(), 1, mine);
            } catch (IdWorkerConfigurationException refused) {
                return mine;
            }
        });
        List<PoolReservation> reserved = outcomes.stream().filter(PoolReservation.class::isInstance)
                .map(PoolReservation.class::cast).toList();
        Set<Object> refused = new HashSet<>(outcomes.stream().filter(PoolEnvironment.class::isInstance).toList());
        assertThat(reserved).as("the winning environment's reservations").hasSize(THREADS / 2);
        assertThat(refused).as("the environment refused").hasSize(1);
        assertCoverExactly(reserved, entity.startOffset(), currentOffset(entity.key()));
    }
}
