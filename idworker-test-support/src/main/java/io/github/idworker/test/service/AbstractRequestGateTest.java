package io.github.idworker.test.service;

import io.github.idworker.service.RequestGate;
import io.github.idworker.service.RequestGate.Admission;
import io.github.idworker.service.RequestGate.Decision;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.test.Racers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * The contract every {@link RequestGate} keeps, run against a real store. A store's test extends this class and
 * returns its store from {@link #createStore()}; nothing else is needed.
 *
 * <p>What it checks: a nonce is admitted once and then refused as a replay by every gate over the store, until it
 * expires after its time to live, when it is admitted once again; {@value #THREADS} threads on each of two gates
 * racing over the same {@value #NONCES} nonces get each admitted exactly once in total
 * ({@link #assertEachNonceAdmittedOnce} fails for a gate that checks and records a nonce in two steps); a call
 * for an entity not allowed records its nonce and counts nothing; an application's IDs are counted per second
 * across gates, a call that would pass its limit is refused with the wait until the next second (at most one
 * second) and counts nothing, and a smaller call still fits; replays count nothing; a count or a limit below one
 * is refused before anything is recorded; a call stamped before the store's present data began plus the reset guard
 * is refused as {@link Decision#STORE_RESET} and records nothing.
 *
 * <p>Each test uses fresh random application keys and nonces; the store removes its records when closed. Tests
 * about one second's count start right after a second of {@link RequestGateStore#clockMillis()} begins and run
 * again (at most {@value #SECOND_ATTEMPTS} times) if they failed having run into the next second.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class AbstractRequestGateTest {

    /** Threads racing on each gate of the nonce race. */
    protected static final int THREADS = 16;
    /** Nonces of the nonce race, each sent by every thread. */
    protected static final int NONCES = 200;
    /** How long nonces are kept in tests that do not wait for them to expire. */
    protected static final Duration TTL = Duration.ofMinutes(1);
    /** A limit no test reaches. */
    protected static final int UNLIMITED = 1_000_000;
    private static final int SECOND_ATTEMPTS = 3;

    protected RequestGateStore store;

    /** The store under test; called once per test. */
    protected abstract RequestGateStore createStore() throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void closeStore() throws Exception {
        store.close();
    }

    /** A fresh application key. */
    protected static String newAppKey() {
        return "g-" + UUID.randomUUID().toString().substring(0, 13);
    }

    /** A fresh nonce, as a client makes it. */
    protected static String newNonce() {
        return RequestSigner.newNonce();
    }

    /**
     * How far ahead of this JVM's clock the calls of these tests are stamped: a store that started moments ago
     * (the embedded Redis starts on first use) refuses calls stamped before its start, rounded up to a second.
     */
    protected static final long STAMPED_AHEAD_MILLIS = 5_000;

    /** {@code gate.admit} of a call stamped now (plus {@link #STAMPED_AHEAD_MILLIS}), with no reset guard. */
    protected static Admission admit(RequestGate gate, String appKey, String nonce, Duration nonceTtl,
                                     boolean allowed, int count, int maxPerSecond) {
        return gate.admit(appKey, nonce, System.currentTimeMillis() + STAMPED_AHEAD_MILLIS, nonceTtl, Duration.ZERO,
                allowed, count, maxPerSecond);
    }

    /** What many callers racing over the same nonces saw. */
    protected record NonceRace(int calls, Map<String, Integer> admissions, List<Integer> admittedPerGate,
                               int replays) {

        /** Admissions of every nonce together. */
        public int admitted() {
            return admissions.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /**
     * {@code threadsPerGate} threads on each gate, released together, each admitting every nonce of
     * {@code nonces} in the same order (so they collide as often as they can) under application {@code appKey}
     * with no limit in reach.
     */
    protected static NonceRace raceOverNonces(List<RequestGate> gates, int threadsPerGate, List<String> nonces,
                                              String appKey) throws InterruptedException {
        Map<String, AtomicInteger> admissions = new ConcurrentHashMap<>();
        List<AtomicInteger> perGate = new ArrayList<>();
        gates.forEach(g -> perGate.add(new AtomicInteger()));
        AtomicInteger replays = new AtomicInteger();
        int threads = gates.size() * threadsPerGate;
        Racers.race(threads, t -> () -> {
            int g = t % gates.size();
            RequestGate gate = gates.get(g);
            for (String nonce : nonces) {
                Admission a = admit(gate, appKey, nonce, TTL, true, 1, UNLIMITED);
                switch (a.decision()) {
                    case ADMITTED -> {
                        admissions.computeIfAbsent(nonce, n -> new AtomicInteger()).incrementAndGet();
                        perGate.get(g).incrementAndGet();
                    }
                    case REPLAY -> replays.incrementAndGet();
                    default -> throw new AssertionError("nonce " + nonce + ": " + a);
                }
            }
            return null;
        }, 50, TimeUnit.SECONDS);
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        admissions.forEach((n, c) -> counts.put(n, c.get()));
        return new NonceRace(threads * nonces.size(), Map.copyOf(counts),
                perGate.stream().map(AtomicInteger::get).toList(), replays.get());
    }

    /** Fails, counting the nonces admitted twice or never, unless every nonce was admitted exactly once. */
    protected static void assertEachNonceAdmittedOnce(NonceRace race, List<String> nonces) {
        List<String> twice = nonces.stream().filter(n -> race.admissions().getOrDefault(n, 0) > 1).toList();
        List<String> never = nonces.stream().filter(n -> race.admissions().getOrDefault(n, 0) == 0).toList();
        if (!twice.isEmpty() || !never.isEmpty()) {
            fail("%d calls over %d nonces: %d admissions in total; %d nonces admitted more than once (e.g. %s, %d "
                            + "times), %d never admitted", race.calls(), nonces.size(), race.admitted(), twice.size(),
                    twice.isEmpty() ? "-" : twice.get(0),
                    twice.isEmpty() ? 0 : race.admissions().getOrDefault(twice.get(0), 0), never.size());
        }
        assertThat(race.admitted()).isEqualTo(nonces.size());
        assertThat(race.replays()).as("every other call is a replay").isEqualTo(race.calls() - nonces.size());
    }

    /**
     * Runs {@code scenario} with a fresh application key, starting just after a second of the store's clock
     * begins; again, with another key, when it failed having run into the next second.
     */
    protected void withinOneSecond(Consumer<String> scenario) {
        for (int attempt = 1; ; attempt++) {
            sleepMillis(1_000 - store.clockMillis() % 1_000 + 5);
            long second = store.clockMillis() / 1_000;
            try {
                scenario.accept(newAppKey());
                return;
            } catch (AssertionError e) {
                if (store.clockMillis() / 1_000 == second || attempt == SECOND_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Decision decision(RequestGate gate, String app, String nonce, boolean allowed, int count,
                                     int maxPerSecond) {
        return admit(gate, app, nonce, TTL, allowed, count, maxPerSecond).decision();
    }

    @Test
    void aNonceIsAdmittedOnceAndThenAReplayOnEveryGate() {
        RequestGate first = store.newGate();
        RequestGate second = store.newGate();
        String app = newAppKey();
        String nonce = newNonce();
        Admission admitted = admit(first, app, nonce, TTL, true, 1, UNLIMITED);
        assertThat(admitted.decision()).isEqualTo(Decision.ADMITTED);
        assertThat(admitted.retryAfter()).isEqualTo(Duration.ZERO);
        assertThat(decision(first, app, nonce, true, 1, UNLIMITED)).isEqualTo(Decision.REPLAY);
        assertThat(decision(second, app, nonce, true, 1, UNLIMITED)).as("on another gate").isEqualTo(Decision.REPLAY);
        assertThat(decision(second, app, nonce, false, 1, UNLIMITED)).as("a replay before a forbidden entity")
                .isEqualTo(Decision.REPLAY);
        assertThat(decision(second, app, newNonce(), true, 1, UNLIMITED)).as("a fresh nonce")
                .isEqualTo(Decision.ADMITTED);
    }

    @Test
    void sixteenThreadsOnEachOfTwoGatesAdmitEachOf200RacedNoncesExactlyOnce() throws Exception {
        List<RequestGate> gates = List.of(store.newGate(), store.newGate());
        List<String> nonces = new ArrayList<>();
        for (int i = 0; i < NONCES; i++) {
            nonces.add(newNonce());
        }
        long started = System.nanoTime();
        NonceRace race = raceOverNonces(gates, THREADS, nonces, newAppKey());
        System.out.printf("%s: %d calls over %d nonces from %d threads on 2 gates in %d ms: %d admitted (%s per "
                        + "gate), %d replays%n", getClass().getSimpleName(), race.calls(), NONCES, 2 * THREADS,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), race.admitted(), race.admittedPerGate(),
                race.replays());
        assertEachNonceAdmittedOnce(race, nonces);
    }

    @Test
    void aNonceExpiresAfterItsTimeToLiveAndIsThenAdmittedOnceAgain() {
        RequestGate gate = store.newGate();
        String app = newAppKey();
        String nonce = newNonce();
        Duration ttl = Duration.ofMillis(400);
        // taken before the call: the nonce is recorded after this instant, so it cannot be gone sooner than ttl
        long askedAt = System.nanoTime();
        assertThat(admit(gate, app, nonce, ttl, true, 1, UNLIMITED).decision()).isEqualTo(Decision.ADMITTED);
        assertThat(admit(gate, app, nonce, ttl, true, 1, UNLIMITED).decision()).isEqualTo(Decision.REPLAY);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> admit(gate, app, nonce, ttl, true, 1, UNLIMITED).decision() == Decision.ADMITTED);
        long keptMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt);
        // a store's clock may round to whole milliseconds
        assertThat(keptMillis).as("kept for its time to live, ms").isGreaterThanOrEqualTo(ttl.toMillis() - 2);
        assertThat(admit(gate, app, nonce, ttl, true, 1, UNLIMITED).decision()).as("recorded again")
                .isEqualTo(Decision.REPLAY);
    }

    @Test
    void aCallForAnEntityNotAllowedRecordsItsNonceAndCountsNothing() {
        RequestGate gate = store.newGate();
        RequestGate other = store.newGate();
        withinOneSecond(app -> {
            String nonce = newNonce();
            Admission forbidden = admit(gate, app, nonce, TTL, false, 100, 100);
            assertThat(forbidden.decision()).isEqualTo(Decision.FORBIDDEN);
            assertThat(forbidden.retryAfter()).isEqualTo(Duration.ZERO);
            assertThat(decision(other, app, nonce, true, 100, 100)).as("its nonce is recorded")
                    .isEqualTo(Decision.REPLAY);
            assertThat(decision(other, app, newNonce(), true, 100, 100)).as("the whole limit is left")
                    .isEqualTo(Decision.ADMITTED);
            assertThat(decision(gate, app, newNonce(), true, 1, 100)).as("and now used")
                    .isEqualTo(Decision.RATE_LIMITED);
        });
    }

    /**
     * Limit 100 per second, calls of 30: three fit (one of them through another gate), a replay of one counts
     * nothing, the fourth is refused with the wait until the next second and counts nothing, so a call of 10
     * still fits and then nothing more; after the wait 30 fit again.
     */
    @Test
    void anApplicationsIdsAreCountedPerSecondAcrossGatesAndARefusedCallCountsNothing() {
        RequestGate gate = store.newGate();
        RequestGate other = store.newGate();
        AtomicReference<String> appOfTheSecond = new AtomicReference<>();
        AtomicReference<Duration> retryAfter = new AtomicReference<>();
        withinOneSecond(app -> {
            String first = newNonce();
            assertThat(decision(gate, app, first, true, 30, 100)).isEqualTo(Decision.ADMITTED);
            assertThat(decision(gate, app, newNonce(), true, 30, 100)).isEqualTo(Decision.ADMITTED);
            assertThat(decision(other, app, newNonce(), true, 30, 100)).isEqualTo(Decision.ADMITTED);
            assertThat(decision(other, app, first, true, 30, 100)).isEqualTo(Decision.REPLAY);
            String fourth = newNonce();
            Admission refused = admit(gate, app, fourth, TTL, true, 30, 100);
            assertThat(refused.decision()).as("the fourth call of 30").isEqualTo(Decision.RATE_LIMITED);
            assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(decision(other, app, fourth, true, 30, 100)).as("its nonce is recorded")
                    .isEqualTo(Decision.REPLAY);
            assertThat(decision(other, app, newNonce(), true, 10, 100)).as("10 more fit: 90 + 10 = 100")
                    .isEqualTo(Decision.ADMITTED);
            assertThat(decision(gate, app, newNonce(), true, 1, 100)).as("and not one more")
                    .isEqualTo(Decision.RATE_LIMITED);
            appOfTheSecond.set(app);
            retryAfter.set(refused.retryAfter());
        });
        sleepMillis(Objects.requireNonNull(retryAfter.get()).toMillis() + 20);
        assertThat(decision(gate, Objects.requireNonNull(appOfTheSecond.get()), newNonce(), true, 30, 100))
                .as("after the wait %s", retryAfter.get()).isEqualTo(Decision.ADMITTED);
    }

    @Test
    void aCallAboveTheWholeLimitIsRefusedWithAWaitOfAtMostOneSecond() {
        RequestGate gate = store.newGate();
        String app = newAppKey();
        Admission refused = admit(gate, app, newNonce(), TTL, true, 101, 100);
        assertThat(refused.decision()).isEqualTo(Decision.RATE_LIMITED);
        assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(decision(gate, app, newNonce(), true, 100, 100)).as("nothing counted")
                .isEqualTo(Decision.ADMITTED);
    }

    /**
     * A count below one would lower the application's count for the second (letting later calls pass its limit);
     * a limit below one would refuse every call. Both are refused as arguments, before the nonce is recorded.
     */
    @Test
    void aCountOrALimitBelowOneIsRefusedBeforeAnythingIsRecorded() {
        RequestGate gate = store.newGate();
        withinOneSecond(app -> {
            String nonce = newNonce();
            for (int count : new int[] {0, -50, Integer.MIN_VALUE}) {
                assertThatThrownBy(() -> admit(gate, app, nonce, TTL, true, count, 100))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count")
                        .hasMessageContaining(String.valueOf(count));
            }
            for (int limit : new int[] {0, -1}) {
                assertThatThrownBy(() -> admit(gate, app, nonce, TTL, true, 1, limit))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPerSecond");
            }
            assertThat(decision(gate, app, nonce, true, 100, 100)).as("the nonce is fresh, the whole limit left")
                    .isEqualTo(Decision.ADMITTED);
            assertThat(decision(gate, app, newNonce(), true, 1, 100)).isEqualTo(Decision.RATE_LIMITED);
        });
    }

    /**
     * A store's present data vouches only for nonces recorded since it began: a call stamped before that start plus
     * the guard may carry a nonce recorded and then lost, so it is refused and records nothing — the same nonce
     * stamped later is admitted. A guard of 1000 days refuses a call stamped now.
     */
    @Test
    void aCallStampedBeforeTheStoresStartPlusTheGuardIsRefusedAndRecordsNothing() {
        RequestGate gate = store.newGate();
        RequestGate other = store.newGate();
        String app = newAppKey();
        String nonce = newNonce();
        long now = store.clockMillis() + STAMPED_AHEAD_MILLIS;
        assertThat(gate.admit(app, nonce, now - Duration.ofDays(1000).toMillis(), TTL, Duration.ZERO, true, 1,
                UNLIMITED)).isEqualTo(new Admission(Decision.STORE_RESET, Duration.ZERO));
        assertThat(other.admit(app, nonce, now, TTL, Duration.ofDays(1000), true, 1, UNLIMITED).decision())
                .as("stamped now, guard 1000 days").isEqualTo(Decision.STORE_RESET);
        assertThat(other.admit(app, nonce, now, TTL, Duration.ZERO, true, 1, UNLIMITED).decision())
                .as("the nonce was not recorded").isEqualTo(Decision.ADMITTED);
        assertThat(gate.admit(app, nonce, now, TTL, Duration.ZERO, true, 1, UNLIMITED).decision())
                .isEqualTo(Decision.REPLAY);
        assertThatThrownBy(() -> gate.admit(app, newNonce(), now, TTL, Duration.ofMillis(-1), true, 1, UNLIMITED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resetGuard");
    }

    @Test
    void aBlankNonceIsRefused() {
        RequestGate gate = store.newGate();
        for (String nonce : new String[] {null, "", "  "}) {
            assertThatThrownBy(() -> admit(gate, newAppKey(), nonce, TTL, true, 1, 100))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nonce");
        }
    }
}
