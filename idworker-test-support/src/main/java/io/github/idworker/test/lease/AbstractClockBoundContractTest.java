package io.github.idworker.test.lease;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.test.ManualClock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract kit's tests of DESIGN rule 13, run for every centre by {@link AbstractSequenceManagerContractTest}:
 * a centre bounds the worker's clock. A borrow or renewal whose worker clock is ahead of the centre's by more than
 * max-skew is refused with {@link ClockAheadOfCentreException}, so no stored high-water exceeds the centre's clock +
 * ttl + max-skew and no successor after a loss repeats an identifier; a clock behind is safe by the fence.
 */
public abstract class AbstractClockBoundContractTest extends AbstractLossGuardContractTest {

    AbstractClockBoundContractTest() {
    }

    /**
     * A borrow whose worker clock is four times max-skew ahead of the centre's is refused with
     * {@link ClockAheadOfCentreException} naming the namespace, both clocks and max-skew, and stores nothing; one
     * within max-skew is believed; a worker whose clock is ahead does not start.
     */
    @Test
    void aBorrowWhoseClockIsAheadOfTheCentreByMoreThanMaxSkewIsRefusedAndStoresNothing() {
        String ns = newNamespace();
        long centreBefore = store.centreNowMillis();
        long ahead = centreBefore + 4 * SKEW.toMillis();
        assertThatThrownBy(() -> store.newManager().borrow(workerRequest(ns, 4, ahead)))
                .isInstanceOfSatisfying(ClockAheadOfCentreException.class, e -> {
                    assertThat(e.getNamespace()).isEqualTo(ns);
                    assertThat(e.getWorkerMillis()).isEqualTo(ahead);
                    assertThat(e.getCentreMillis()).isBetween(centreBefore, store.centreNowMillis());
                    assertThat(e.getMaxSkewMillis()).isEqualTo(SKEW.toMillis());
                    assertThat(e.getMessage()).contains(ns, Instant.ofEpochMilli(ahead).toString(),
                            Instant.ofEpochMilli(e.getCentreMillis()).toString(), "idworker.lease.max-skew",
                            SKEW.toMillis() + " ms", "NTP");
                });
        for (int slot = 0; slot < 4; slot++) {
            assertThat(store.storedOwner(ns, slot)).isNull();
            assertThat(store.storedHighWater(ns, slot)).isEqualTo(-1);
        }
        WorkerLease believed = store.newManager().borrow(
                workerRequest(ns, 4, store.centreNowMillis() + SKEW.toMillis() / 2));
        assertThat(store.storedOwner(ns, believed.workerId())).isEqualTo(believed.owner());

        String aged = agedNamespace(2);
        ManualClock clock = new ManualClock(store.centreNowMillis() + 4 * SKEW.toMillis());
        assertThatThrownBy(() -> worker(store.newManager(), aged, 2, clock, BackwardsPolicy.FAIL))
                .isInstanceOf(ClockAheadOfCentreException.class)
                .hasMessageContaining(aged);
    }

    /**
     * A renewal asking for a high-water beyond the centre's clock + ttl + max-skew (its worker's clock ahead by
     * more than max-skew) is refused and changes nothing. A worker whose clock jumps ahead keeps its old
     * high-water: past it, callers get {@link ClockAheadOfCentreException}, never an identifier; once the clock is
     * right again, the worker renews and issues.
     */
    @Test
    void aRenewalWhoseClockIsAheadIsRefusedAndTheHolderFencesItself() {
        String ns = agedNamespace(1);
        ISequenceManager m = store.newManager();
        WorkerLease lease = m.borrow(workerRequest(ns, 2, centreNow()));
        long tooFar = store.centreNowMillis() + WORKER_TTL.toMillis() + 4 * SKEW.toMillis();
        assertThatThrownBy(() -> m.renew(lease, tooFar))
                .isInstanceOfSatisfying(ClockAheadOfCentreException.class, e -> {
                    assertThat(e.getWorkerMillis()).isEqualTo(tooFar - WORKER_TTL.toMillis());
                    assertThat(e.getMessage()).contains(ns, "idworker.lease.max-skew");
                });
        assertThat(store.storedHighWater(ns, lease.workerId())).isEqualTo(lease.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
        long believed = Math.max(lease.highWaterMillis(), store.centreNowMillis() + WORKER_TTL.toMillis());
        assertThat(m.renew(lease, believed).highWaterMillis()).isEqualTo(believed);
        m.giveBack(lease, lease.floorMillis());

        ManualClock clock = workerClock();
        AbstractIdWorker a = worker(store.newManager(), ns, 1, clock, BackwardsPolicy.FAIL);
        long first = a.nextId();
        int slot = leaseOf(a).workerId();
        long highWater = leaseOf(a).highWaterMillis();
        clock.advance(4 * SKEW.toMillis() + WORKER_TTL.toMillis());
        assertThatThrownBy(a::renew).isInstanceOf(ClockAheadOfCentreException.class);
        assertThat(store.storedHighWater(ns, slot)).isEqualTo(highWater);
        assertThat(leaseOf(a).highWaterMillis()).isEqualTo(highWater);
        assertThatThrownBy(a::nextId)
                .isInstanceOf(ClockAheadOfCentreException.class)
                .hasMessageContaining(Instant.ofEpochMilli(highWater).toString())
                .hasMessageContaining("idworker.lease.max-skew");
        assertThat(a.leaseSwitchCount()).isZero();

        clock.set(store.centreNowMillis());
        a.renew();
        long after = a.nextId();
        assertThat(after).isGreaterThan(first);
        assertThat(store.storedHighWater(ns, slot)).isGreaterThanOrEqualTo(a.decode(after).timestamp().toEpochMilli());
    }

    /**
     * Scenario 2 of issue #22: a worker whose clock is ten times max-skew ahead of the centre's borrows worker id 0
     * and issues, then stops; the centre loses the namespace (a Redis restart without persistence); a correct
     * worker borrows worker id 0. None of its identifiers may repeat one of the fast worker's.
     */
    @Test
    void aWorkerAheadOfTheCentreAtItsBorrowNeverMakesASuccessorRepeatItsIdsAfterALoss() {
        replayScenario2(true);
    }

    /** Scenario 2 with a worker that borrowed with a correct clock, which then jumped ten times max-skew ahead. */
    @Test
    void aWorkerWhoseClockJumpsAheadWhileHoldingNeverMakesASuccessorRepeatItsIdsAfterALoss() {
        replayScenario2(false);
    }

    private void replayScenario2(boolean aheadAtBorrow) {
        String ns = agedNamespace(0);
        long aheadBy = 10 * SKEW.toMillis();
        ManualClock clockA = new ManualClock(store.centreNowMillis() + (aheadAtBorrow ? aheadBy : 0));
        Set<Long> idsOfA = new HashSet<>();
        AbstractIdWorker a = null;
        try {
            a = worker(store.newManager(), ns, 0, clockA, BackwardsPolicy.FAIL);
        } catch (ClockAheadOfCentreException refused) {
            assertThat(aheadAtBorrow).as("only a worker ahead at its borrow is refused it").isTrue();
        }
        if (a != null) {
            if (!aheadAtBorrow) {
                for (int i = 0; i < 100; i++) {
                    idsOfA.add(a.nextId());
                }
                clockA.advance(aheadBy);
            }
            // two ttls of its clock, 20 identifiers a millisecond, renewing every 100 ms as its heartbeat would
            long from = clockA.millis();
            issuing:
            for (long t = from; t < from + 2 * WORKER_TTL.toMillis(); t++) {
                clockA.set(t);
                if ((t - from) % 100 == 0) {
                    try {
                        a.renew();
                    } catch (IdWorkerException refused) {
                        // the worker keeps what it stored before and fences itself there
                    }
                }
                for (int i = 0; i < 20; i++) {
                    try {
                        idsOfA.add(a.nextId());
                    } catch (IdWorkerException fenced) {
                        break issuing;
                    }
                }
            }
            a.close();
        }
        long lastOfA = 0;
        for (long id : idsOfA) {
            lastOfA = Math.max(lastOfA, layout(0).decode(id).timestamp().toEpochMilli());
        }
        afterThisMillisecond();
        store.deleteNamespace(ns);

        AbstractIdWorker b = start(store.newManager(), options(ns, layout(0), centreClock())
                .renewAutomatically(true).fenceWait(Duration.ofSeconds(5)).build());
        assertThat(leaseOf(b).workerId()).isZero();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long repeated = 0;
        long issuedByB = 0;
        long id;
        do {
            id = b.nextId();
            issuedByB++;
            if (idsOfA.contains(id)) {
                repeated++;
            }
        } while (b.decode(id).timestamp().toEpochMilli() <= lastOfA && System.nanoTime() < deadline);
        System.out.printf("KIT-RESULT %s scenario-2 aheadAtBorrow=%s issuedByA=%d lastOfA=%s issuedByB=%d repeated=%d%n",
                getClass().getSimpleName(), aheadAtBorrow, idsOfA.size(), Instant.ofEpochMilli(lastOfA), issuedByB,
                repeated);
        assertThat(repeated).as("identifiers of the fast worker issued again by its successor").isZero();
    }

    /**
     * A worker whose clock is three times max-skew behind the centre's is believed (only a clock ahead is
     * bounded), and the fence keeps it safe: it waits for its clock to pass the previous holder's last timestamp,
     * renews, and repeats none of that holder's identifiers.
     */
    @Test
    void aWorkerClockBehindTheCentreByMoreThanMaxSkewStaysSafeBehindTheFence() {
        String ns = agedNamespace(0);
        AbstractIdWorker a = start(store.newManager(), options(ns, layout(0), centreClock()).build());
        Set<Long> idsOfA = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            idsOfA.add(a.nextId());
        }
        long lastOfA = a.decode(a.nextId()).timestamp().toEpochMilli();
        a.close();

        long behindBy = 3 * SKEW.toMillis();
        AbstractIdWorker c = start(store.newManager(), options(ns, layout(0), () -> centreNow() - behindBy).build());
        assertThat(leaseOf(c).floorMillis()).isGreaterThanOrEqualTo(lastOfA);
        c.renew();
        long[] idsOfC = c.nextIds(20_000);
        assertThat(Arrays.stream(idsOfC).filter(idsOfA::contains).count()).isZero();
        assertThat(c.decode(idsOfC[0]).timestamp().toEpochMilli()).isGreaterThan(lastOfA);
    }

}
