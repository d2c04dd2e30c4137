package io.github.idworker.test.pool;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.IncreasingType;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolExhaustedException;
import io.github.idworker.pool.PoolReservation;
import io.github.idworker.pool.PoolRowMovedBackException;
import io.github.idworker.pool.PoolStore;
import io.github.idworker.pool.UnknownPoolEntityException;
import io.github.idworker.test.Racers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

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
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractPoolStoreContractTest {

    /** Threads of the concurrency tests. */
    protected static final int THREADS = 16;
    /** Store instances the threads share, as that many processes over one backing store. */
    protected static final int STORES = 4;
    /** Concurrent registrations of one entity. */
    protected static final int REGISTRATIONS = 8;
    /** Two deployments splitting the ID space, as environments 0/2 and 1/2. */
    protected static final PoolEnvironment FIRST_OF_TWO = new PoolEnvironment(0, 2);
    protected static final PoolEnvironment SECOND_OF_TWO = new PoolEnvironment(1, 2);

    private final List<String> keys = new ArrayList<>();
    protected PoolStoreStore store;

    /** The store under test; called once per test. */
    protected abstract PoolStoreStore createStore() throws Exception;

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
            for (String key : keys) {
                store.deleteEntity(key);
            }
        } finally {
            store.close();
        }
    }

    /** A fresh entity key, deleted after the test. */
    protected String newKey() {
        String key = "p-" + UUID.randomUUID().toString().substring(0, 13);
        keys.add(key);
        return key;
    }

    /** A {@code MONOTONIC} entity under a fresh key, step 10, starting at offset 1 000. */
    protected PoolEntity.Builder newEntity() {
        return PoolEntity.builder(newKey()).name("orders").step(10).startOffset(1_000);
    }

    /** {@code count} independent store instances over the backing store. */
    protected List<PoolStore> newStores(int count) {
        List<PoolStore> stores = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            stores.add(store.newStore());
        }
        return stores;
    }

    /** The entity's {@code current-offset} as a fresh store instance reads it. */
    protected long currentOffset(String key) {
        return store.newStore().find(key).orElseThrow().currentOffset();
    }

    /** Runs {@code task.apply(i)} on {@code threads} threads released together; their results in order. */
    protected static <T> List<T> onThreads(int threads, IntFunction<Callable<T>> task) throws InterruptedException {
        return Racers.race(threads, task, 100, TimeUnit.SECONDS);
    }

    private static <T> List<T> flatten(List<List<T>> lists) {
        List<T> all = new ArrayList<>();
        lists.forEach(all::addAll);
        return all;
    }

    /**
     * Asserts that {@code reservations} hold every offset from {@code first} to {@code last} exactly once: no
     * offset twice, no hole. A failure counts the overlaps and holes, to show how badly a broken store failed.
     */
    protected static void assertCoverExactly(Collection<PoolReservation> reservations, long first, long last) {
        List<PoolReservation> sorted = reservations.stream()
                .sorted(Comparator.comparingLong(PoolReservation::firstOffset)).toList();
        long next = first;
        long offsets = 0;
        long overlapping = 0;
        long offsetsTwice = 0;
        long holes = 0;
        String example = null;
        for (PoolReservation r : sorted) {
            offsets += r.size();
            if (r.firstOffset() < next) {
                overlapping++;
                offsetsTwice += Math.min(r.lastOffset(), next - 1) - r.firstOffset() + 1;
                if (example == null) {
                    example = "offset " + r.firstOffset() + " reserved twice";
                }
            } else if (r.firstOffset() > next) {
                holes++;
                if (example == null) {
                    example = "offsets " + next + " to " + (r.firstOffset() - 1) + " never reserved";
                }
            }
            next = Math.max(next, r.lastOffset() + 1);
        }
        if (next != last + 1) {
            holes++;
            if (example == null) {
                example = "reservations end at " + (next - 1) + ", current-offset is " + last;
            }
        }
        if (example != null) {
            fail("%d reservations (%d offsets) of %d..%d: %d overlap an earlier one (%d offsets reserved twice), "
                    + "%d holes; e.g. %s", sorted.size(), offsets, first, last, overlapping, offsetsTwice, holes,
                    example);
        }
        assertThat(offsets).as("offsets reserved in %s..%s", first, last).isEqualTo(last - first + 1);
    }

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

    private void assertNoCredentials(String text) {
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
