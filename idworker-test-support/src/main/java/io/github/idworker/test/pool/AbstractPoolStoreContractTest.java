package io.github.idworker.test.pool;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolExhaustedException;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolRowMovedBackException;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.UnknownPoolEntityException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link PoolStore} keeps, run against a real store. A store's test extends this class and
 * returns its store from {@link #createStore()}; nothing else is needed, for example
 * {@code class MyDbPoolStoreTest extends AbstractPoolStoreContractTest { protected PoolStoreStore createStore() {
 * return new MyDbStore(); } }}.
 *
 * <p>What it checks: reservations of one entity never overlap and leave no hole from its {@code start-offset} up
 * to its {@code current-offset}, whichever of several store instances made them and however many threads race;
 * each reservation is {@code chunks × step} offsets with the step its row held in the reserving transaction;
 * nothing is reserved below {@code start-offset} or past the environment's largest offset, and the entity then
 * fails with {@link PoolExhaustedException} leaving {@code current-offset} as it was; registration is idempotent
 * under concurrent registrations and the stored row wins over changed settings; a row is pinned to the first
 * environment that registers or reserves it and refuses any other without reserving anything; an unknown entity
 * fails with {@link UnknownPoolEntityException} naming it and the store without credentials; a row an operator
 * made invalid fails naming the property of the field; a missing table fails the schema check naming the
 * property that creates it; an entity whose {@code current-offset} an operator lowered by hand (below offsets
 * already reserved) is refused with {@link PoolRowMovedBackException} by every store instance, nothing reserved,
 * until it is raised again.
 *
 * <p>Each test uses fresh random entity keys and deletes them afterwards. Concurrency tests run {@value #THREADS}
 * threads over {@value #STORES} store instances, as several processes would.
 *
 * <p>The kit is one chain, a class for each group: {@code PoolStoreKit} (the store, keys and assertions),
 * {@code AbstractPoolStoreReservationContractTest}, {@code AbstractPoolStoreRegistrationContractTest} (with the
 * environment pinning) and this class: what a store does with a row an operator got wrong, an unknown entity and
 * a missing table.
 */
public abstract class AbstractPoolStoreContractTest extends AbstractPoolStoreRegistrationContractTest {

    @Test
    void anUnknownEntityFailsNamingItAndTheStoreWithoutCredentials() {
        String key = newKey();
        PoolStore s = store.newStore();
        assertThatThrownBy(() -> s.reserve(key, 1, PoolEnvironment.SINGLE))
                .isInstanceOfSatisfying(UnknownPoolEntityException.class, e -> assertThat(e.getEntity()).isEqualTo(key))
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining(s.description())
                .satisfies(e -> assertNoCredentials(e.getMessage()));
        assertThat(s.find(key)).as("a failed reservation creates nothing").isEmpty();
        assertThat(s.description()).isNotBlank();
        assertNoCredentials(s.description());
    }

    private void assertNoCredentials(@Nullable String text) {
        assertThat(text).doesNotContainPattern("//[^/\\s]*@");
        for (String secret : store.credentials()) {
            assertThat(text).doesNotContain(secret);
        }
    }

    @Test
    void aRowWithAnInvalidSettingFailsNamingItsPropertyUntilItIsPutBack() {
        PoolEntity entity = newEntity().build();
        PoolStore s = store.newStore();
        s.register(entity, PoolEnvironment.SINGLE);
        s.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        store.setSetting(entity.key(), "threshold-percent", 0);
        String property = "idworker.pool.entities." + entity.key() + ".threshold-percent";
        List<Runnable> uses = List.of(
                () -> s.find(entity.key()),
                () -> s.findAll(),
                () -> s.register(entity, PoolEnvironment.SINGLE),
                () -> s.reserve(entity.key(), 1, PoolEnvironment.SINGLE));
        for (Runnable use : uses) {
            assertThatThrownBy(use::run)
                    .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                            e -> assertThat(e.getProperty()).isEqualTo(property))
                    .hasMessageContaining("'" + entity.key() + "'")
                    .hasMessageContaining("invalid");
        }
        store.setSetting(entity.key(), "threshold-percent", entity.thresholdPercent());
        assertThat(currentOffset(entity.key())).as("nothing reserved meanwhile").isEqualTo(1_009);
        assertThat(s.reserve(entity.key(), 1, PoolEnvironment.SINGLE).firstOffset()).isEqualTo(1_010);
    }

    @Test
    void aMissingTableFailsTheSchemaCheckNamingTheInitializeSchemaProperty() {
        String table = "no_pool_" + UUID.randomUUID().toString().substring(0, 8);
        assertThatThrownBy(() -> store.verifySchemaOf(table))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo("idworker.pool.initialize-schema"))
                .hasMessageContaining(table)
                .satisfies(e -> assertNoCredentials(e.getMessage()));
    }

    /** Asserts that {@code e} refuses entity {@code key} naming it, the store and both values. */
    protected static void assertMovedBack(Throwable e, String key, long currentOffset, long reservedTo) {
        assertThat(e).isInstanceOfSatisfying(PoolRowMovedBackException.class, m -> {
            assertThat(m.getEntity()).isEqualTo(key);
            assertThat(m.getCurrentOffset()).isEqualTo(currentOffset);
            assertThat(m.getReservedTo()).isEqualTo(reservedTo);
            assertThat(m.getTable()).isNotBlank();
            assertThat(m.getMessage()).contains("'" + key + "'", m.getTable(), "current_offset " + currentOffset,
                    "reserved_to " + reservedTo, "raise current_offset to at least " + reservedTo);
        });
    }

    /**
     * An operator lowers {@code current-offset} (an UPDATE of that one column). The store that made the
     * reservations and new ones (a restart, another node) all refuse the entity with the typed exception and
     * reserve nothing; registering it again does not reset it; raising {@code current-offset} back is the
     * recovery, one raised above it (offsets skipped on purpose) is where reservations continue, and so is a
     * start an operator raised above every reservation.
     */
    @Test
    void aRowMovedBackIsRefusedByEveryStoreUntilCurrentOffsetIsRaisedAgain() {
        PoolEntity entity = newEntity().build();
        PoolStore running = store.newStore();
        running.register(entity, PoolEnvironment.SINGLE);
        running.reserve(entity.key(), 5, PoolEnvironment.SINGLE);
        assertThat(currentOffset(entity.key())).isEqualTo(1_049);
        store.setSetting(entity.key(), "current-offset", 1_019);
        for (PoolStore s : List.of(running, store.newStore(), store.newStore())) {
            assertThatThrownBy(() -> s.reserve(entity.key(), 1, PoolEnvironment.SINGLE))
                    .satisfies(e -> assertMovedBack(e, entity.key(), 1_019, 1_049));
        }
        assertThat(currentOffset(entity.key())).as("nothing reserved by a refusal").isEqualTo(1_019);
        assertThat(store.newStore().register(entity, PoolEnvironment.SINGLE).currentOffset()).isEqualTo(1_019);

        store.setSetting(entity.key(), "current-offset", 1_049); // the recovery
        PoolReservation r = store.newStore().reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(r.firstOffset(), r.lastOffset())).containsExactly(1_050L, 1_059L);
        store.setSetting(entity.key(), "current-offset", 5_000); // offsets skipped on purpose: allowed
        r = running.reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(r.firstOffset(), r.lastOffset())).containsExactly(5_001L, 5_010L);
        store.setSetting(entity.key(), "current-offset", 3); // below the start, too
        assertThatThrownBy(() -> store.newStore().reserve(entity.key(), 1, PoolEnvironment.SINGLE))
                .satisfies(e -> assertMovedBack(e, entity.key(), 3, 5_010));
        store.setSetting(entity.key(), "start-offset", 7_000); // a start above every reservation
        r = store.newStore().reserve(entity.key(), 1, PoolEnvironment.SINGLE);
        assertThat(List.of(r.firstOffset(), r.lastOffset())).containsExactly(7_000L, 7_009L);
    }

    /**
     * 16 threads over four store instances reserve while an operator moves the row back to half of where it
     * stood: every reservation, before and after, is unique, and every refusal is the typed one.
     */
    @Test
    void aRowMovedBackWhileSixteenThreadsReserveNeverYieldsAnOverlappingReservation() throws Exception {
        PoolEntity entity = newEntity().build();
        List<PoolStore> stores = newStores(STORES);
        stores.get(0).register(entity, PoolEnvironment.SINGLE);
        AtomicLong movedTo = new AtomicLong(-1);
        AtomicInteger refusals = new AtomicInteger();
        int perThread = reservationsPerThread();
        List<List<PoolReservation>> byThread = onThreads(THREADS, t -> () -> {
            PoolStore mine = stores.get(t % STORES);
            List<PoolReservation> got = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                if (i == perThread / 2 && movedTo.get() < 0) {
                    synchronized (movedTo) {
                        if (movedTo.get() < 0) {
                            long half = currentOffset(entity.key()) / 2;
                            store.setSetting(entity.key(), "current-offset", half);
                            movedTo.set(half);
                        }
                    }
                }
                try {
                    got.add(mine.reserve(entity.key(), 1, PoolEnvironment.SINGLE));
                } catch (PoolRowMovedBackException e) {
                    assertThat(e.getEntity()).isEqualTo(entity.key());
                    refusals.incrementAndGet();
                }
            }
            return got;
        });
        List<PoolReservation> sorted = flatten(byThread).stream()
                .sorted(Comparator.comparingLong(PoolReservation::firstOffset)).toList();
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i).firstOffset()).as("%s overlaps %s (moved back to %s)", sorted.get(i),
                    sorted.get(i - 1), movedTo.get()).isGreaterThan(sorted.get(i - 1).lastOffset());
        }
        assertThat(refusals.get()).as("reservations after the row moved back").isPositive();
        assertThat(currentOffset(entity.key())).isEqualTo(movedTo.get());
    }
}
