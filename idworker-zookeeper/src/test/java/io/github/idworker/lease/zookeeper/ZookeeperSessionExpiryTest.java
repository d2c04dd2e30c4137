package io.github.idworker.lease.zookeeper;

import org.junit.jupiter.api.Tag;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.WorkerOptions;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;
import io.github.idworker.test.ManualClock;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a ZooKeeper session is and is not worth to a lease. Its end frees the slot at once for a successor, and
 * the holder's next renewal finds the lease lost, so it borrows again; but it is no fence: until the holder
 * learns of it, it keeps issuing, and only the stored high-water keeps it and the successor apart.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ZookeeperSessionExpiryTest {

    /**
     * Short, so that ageing a new namespace (ttl + skew, DESIGN rule 7) stays short; still long enough that no lease
     * runs out by itself while a test relies on it: the worker clocks are manual, and the centre's clock passes a
     * lease's ttl only in the test holding the only slot after its successor took it, a few milliseconds.
     */
    private static final Duration TTL = Duration.ofSeconds(5);
    private static final Duration SKEW = Duration.ofMillis(500);

    private ZookeeperSequenceManagerStore store;
    private String ns;
    private final List<AbstractIdWorker> workers = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        store = new ZookeeperSequenceManagerStore(EmbeddedZookeeper.connectString());
        ns = "s-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        workers.forEach(AbstractIdWorker::close);
        store.deleteNamespace(ns);
        store.close();
    }

    /**
     * A worker clock at the centre's, in a namespace aged past its first floor (its creation + ttl + skew), so
     * the worker need not wait for it; a centre refuses a worker clock ahead of its own by more than the skew
     * (DESIGN rule 13).
     */
    private ManualClock clockAtCentreInAgedNamespace(int workerBits) {
        store.createAgedNamespace(ns, 1 << workerBits, layout(workerBits).pinned(), TTL, SKEW);
        return new ManualClock(store.centreNowMillis());
    }

    /** Waits until the centre's clock reaches {@code millis}, so a worker clock set there is not ahead of it. */
    private void awaitCentreClock(long millis) throws InterruptedException {
        while (store.centreNowMillis() < millis) {
            Thread.sleep(20);
        }
    }

    private AbstractIdWorker worker(ZookeeperSequenceManager manager, int workerBits, ManualClock clock) {
        AbstractIdWorker w = new ZookeeperIdWorker(manager, WorkerOptions.builder()
                .namespace(ns)
                .layout(layout(workerBits))
                .leaseTtl(TTL)
                .maxSkew(SKEW)
                .lossGuard(TTL.plus(SKEW))
                .fenceWait(Duration.ofMillis(200))
                .backwardsPolicy(BackwardsPolicy.FAIL)
                .clock(clock)
                .renewAutomatically(false)
                .shutdownHook(false)
                .build());
        workers.add(w);
        return w.start();
    }

    private static SnowflakeLayout layout(int workerBits) {
        return SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, workerBits, 12);
    }

    @Test
    void anEndedSessionLosesTheLeaseAtTheNextRenewalAndTheWorkerBorrowsAgain() throws Exception {
        CuratorFramework client = store.newClient();
        ZookeeperSequenceManager manager = new ZookeeperSequenceManager(client, store.basePath(),
                ZookeeperSequenceManagerStore.CALL_TIMEOUT);
        ManualClock clock = clockAtCentreInAgedNamespace(2);
        AbstractIdWorker w = worker(manager, 2, clock);
        WorkerLease before = w.currentLease();
        long idBefore = w.nextId();
        assertThat(store.liveNodeExists(ns, before.workerId())).isTrue();

        store.expireSession(client);
        await().atMost(Duration.ofSeconds(10)).until(() -> !store.liveNodeExists(ns, before.workerId()));
        // the session is no fence: within its stored high-water the worker goes on issuing
        clock.advance(1_000);
        awaitCentreClock(clock.millis()); // the renewals below must not run ahead of the centre
        long stillIssued = w.nextId();
        assertThat(w.decode(stillIssued).workerId()).isEqualTo(before.workerId());
        assertThat(w.leaseSwitchCount()).isZero();

        assertThatThrownBy(() -> manager.renew(before, clock.millis() + TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("session")
                .hasMessageContaining(ns);
        assertThat(store.storedHighWater(ns, before.workerId())).isEqualTo(before.highWaterMillis());

        w.renew();
        assertThat(w.leaseSwitchCount()).isEqualTo(1);
        WorkerLease after = w.currentLease();
        assertThat(after.workerId()).isNotEqualTo(before.workerId());
        assertThat(after.generation()).isNotEqualTo(before.generation());
        assertThat(store.storedOwner(ns, after.workerId())).isEqualTo(after.owner());
        assertThat(store.liveNodeExists(ns, after.workerId())).isTrue();
        long idAfter = w.nextId();
        assertThat(idAfter).isGreaterThan(stillIssued).isGreaterThan(idBefore);
        assertThat(w.decode(idAfter).workerId()).isEqualTo(after.workerId());
        // the renewal in the new session goes through
        w.renew();
        assertThat(w.leaseSwitchCount()).isEqualTo(1);
    }

    /**
     * The holder of the only slot is paused, its session ends, and a successor takes the slot at once, long
     * before the lease's ttl. The paused holder does not know: it issues up to its high-water, never above, and
     * the successor issues only above it, so no identifier repeats.
     */
    @Test
    void aSuccessorTakesTheSlotOfAnEndedSessionAtOnceButOnlyAboveTheStoredHighWater() throws Exception {
        CuratorFramework client = store.newClient();
        ZookeeperSequenceManager manager = new ZookeeperSequenceManager(client, store.basePath(),
                ZookeeperSequenceManagerStore.CALL_TIMEOUT);
        // A's clock lags the centre's by the ttl (behind is allowed, ahead is not), so its high-water (clock + ttl)
        // lies at the centre's clock and the successor's clock can start below it; A's clock must still be past
        // the namespace's first floor, which the ageing left at least 1 s behind the centre's clock
        long aged = clockAtCentreInAgedNamespace(0).millis();
        awaitCentreClock(aged + TTL.toMillis());
        long centreAtBorrowOfA = store.centreNowMillis();
        ManualClock clockA = new ManualClock(centreAtBorrowOfA - TTL.toMillis());
        AbstractIdWorker a = worker(manager, 0, clockA);
        Set<Long> idsOfA = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            idsOfA.add(a.nextId());
        }
        long highWaterOfA = a.currentLease().highWaterMillis();
        assertThatThrownBy(() -> store.newManager().borrow(request(1, clockA.millis())))
                .isInstanceOf(WorkerIdExhaustedException.class);

        store.expireSession(client);
        // the successor's clock is behind the holder's high-water: it must wait for it, not reuse it
        ManualClock clockB = new ManualClock(highWaterOfA - 5);
        Thread mover = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            clockB.set(highWaterOfA + 3);
        });
        mover.start();
        AbstractIdWorker b = await().atMost(Duration.ofSeconds(10)).ignoreException(WorkerIdExhaustedException.class)
                .until(() -> worker(store.newManager(), 0, clockB), w -> true);
        // A's record was written after centreAtBorrowOfA by the centre's clock: its ttl runs out after that + ttl
        assertThat(store.centreNowMillis()).as("taken before A's lease could run out by its ttl")
                .isLessThan(centreAtBorrowOfA + TTL.toMillis());
        assertThat(b.currentLease().workerId()).isZero();
        assertThat(b.currentLease().floorMillis()).isEqualTo(highWaterOfA);

        // the paused holder wakes up unaware: up to its high-water it still issues, above it never
        clockA.set(highWaterOfA);
        idsOfA.add(a.nextId());
        clockA.set(highWaterOfA + 1);
        assertThatThrownBy(a::nextId).isInstanceOf(LeaseLostException.class);
        // its renewal finds the lease lost, and the only slot held: it cannot borrow again, and stays fenced
        assertThatThrownBy(a::renew).isInstanceOf(WorkerIdExhaustedException.class);
        assertThatThrownBy(a::nextId).isInstanceOf(LeaseLostException.class);

        for (int i = 0; i < 1_000; i++) {
            long id = b.nextId();
            assertThat(b.decode(id).timestamp().toEpochMilli()).isGreaterThan(highWaterOfA);
            assertThat(idsOfA).doesNotContain(id);
        }
        for (long id : idsOfA) {
            assertThat(a.decode(id).timestamp().toEpochMilli()).isLessThanOrEqualTo(highWaterOfA);
        }
    }

    /**
     * Leases whose ttl ran out (their holders' sessions still alive) are raced for by twice as many borrowers:
     * every slot goes to exactly one of them. Each claim is a compare-and-set on the slot's version, and deletes
     * the old holder's ephemeral node in the same transaction.
     */
    @Test
    void borrowersRacingForExpiredSlotsNeverShareOne() throws Exception {
        int slots = 8;
        ZookeeperSequenceManager holder = store.newManager();
        List<ZookeeperSequenceManager> managers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            managers.add(store.newManager());
        }
        for (int round = 0; round < 5; round++) {
            // borrowers on the centre's clock, in a new namespace each round: its first floor (creation + ttl +
            // skew) lies ahead of them, so every slot is one whose floor they have not passed yet; managers hand
            // out such slots all the same (a worker waits for the floor before it issues)
            List<WorkerLease> held = new ArrayList<>();
            for (int i = 0; i < slots; i++) {
                held.add(holder.borrow(request(slots, store.centreNowMillis())));
            }
            for (WorkerLease lease : held) {
                store.expireLease(ns, lease.workerId());
            }
            ExecutorService racers = Executors.newFixedThreadPool(2 * slots);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<WorkerLease>> claims = new ArrayList<>();
            long racersNow = store.centreNowMillis();
            try {
                for (int i = 0; i < 2 * slots; i++) {
                    ZookeeperSequenceManager m = managers.get(i % managers.size());
                    claims.add(racers.submit(() -> {
                        go.await();
                        try {
                            return m.borrow(request(slots, racersNow));
                        } catch (WorkerIdExhaustedException e) {
                            return null;
                        }
                    }));
                }
                go.countDown();
                List<Integer> won = new ArrayList<>();
                for (Future<WorkerLease> f : claims) {
                    WorkerLease lease = f.get(60, TimeUnit.SECONDS);
                    if (lease != null) {
                        won.add(lease.workerId());
                        assertThat(store.storedOwner(ns, lease.workerId())).isEqualTo(lease.owner());
                    }
                }
                assertThat(won).as("slots won in round %d", round).doesNotHaveDuplicates().hasSize(slots);
            } finally {
                racers.shutdownNow();
            }
            store.deleteNamespace(ns);
        }
    }

    private LeaseRequest request(int slotCount, long workerNow) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, workerNow, SKEW, "test-host", 42,
                layout(Integer.numberOfTrailingZeros(slotCount)).pinned());
    }
}
