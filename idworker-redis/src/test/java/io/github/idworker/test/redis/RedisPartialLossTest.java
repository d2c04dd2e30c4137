package io.github.idworker.test.redis;

import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DESIGN rule 9 on the Redis centre: a lost slot record (an evicted or deleted key, a field deleted by hand)
 * is treated like lost data, so a successor whose clock is behind the previous holder's last identifier (within
 * max-skew) waits instead of issuing that holder's identifiers again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisPartialLossTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);

    private RedisSequenceManagerStore store;
    private final List<String> namespaces = new ArrayList<>();
    private final List<AbstractIdWorker> workers = new ArrayList<>();

    @BeforeEach
    void open() {
        store = RedisSequenceManagerStore.embedded();
    }

    @AfterEach
    void close() {
        workers.forEach(AbstractIdWorker::close);
        namespaces.forEach(store::deleteNamespace);
        store.close();
    }

    private String newNamespace() {
        String ns = "p-" + UUID.randomUUID().toString().substring(0, 13);
        namespaces.add(ns);
        return ns;
    }

    @Test
    void successorBehindThePreviousHolderIssuesNoDuplicateAfterTheSlotRecordWasLost() {
        String ns = newNamespace();
        assertNoDuplicateAfterHandOver(ns, "slot record deleted", () -> store.deleteSlotRecord(ns, 0));
    }

    @Test
    void successorBehindThePreviousHolderIssuesNoDuplicateAfterTheNamespaceHashWasLost() {
        String ns = newNamespace();
        assertNoDuplicateAfterHandOver(ns, "namespace hash deleted", () -> store.jedis().del(store.leaseKey(ns)));
    }

    @Test
    void aLostRecordLiftsTheFloorOfItsSlotToRedisNowPlusGuardAndEndsItsHoldersLease() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        // a namespace in use for a while, so its floors lie behind a worker at the Redis clock (DESIGN rule 13
        // refuses a worker ahead of Redis by more than max-skew)
        store.createAgedNamespace(ns, 2, request(ns, 2, 0).layout(), TTL, SKEW);
        long ahead = redisNowMillis();
        WorkerLease lost = manager.borrow(request(ns, 2, ahead));
        WorkerLease sibling = manager.borrow(request(ns, 2, ahead));
        assertThat(List.of(lost.workerId(), sibling.workerId())).containsExactly(0, 1);

        store.deleteSlotRecord(ns, 0);
        long redisNow = redisNowMillis();
        assertThatThrownBy(() -> manager.renew(lost, lost.highWaterMillis() + 200))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("Worker id 0")
                .hasMessageContaining("record in " + store.leaseKey(ns) + " is gone");

        // the borrower's clock is far behind the generation floor's: only the lost record lifts its floor
        WorkerLease successor = store.newManager().borrow(request(ns, 2, System.currentTimeMillis()));
        assertThat(successor.workerId()).isZero();
        assertThat(successor.floorMillis()).isGreaterThanOrEqualTo(redisNow + TTL.toMillis() + SKEW.toMillis());
        assertThat(successor.generation()).isEqualTo(lost.generation());
        // no + 1 on a floor set in this very call: the successor renews before it issues
        assertThat(successor.highWaterMillis()).isEqualTo(successor.floorMillis());

        assertThatThrownBy(() -> manager.renew(lost, lost.highWaterMillis() + 200))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("another worker holds it");
        manager.giveBack(lost, lost.floorMillis());
        assertThat(store.storedOwner(ns, 0)).isEqualTo(successor.owner());
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(successor.highWaterMillis());
        // the other slot's record survived and its holder goes on
        assertThat(manager.renew(sibling, sibling.highWaterMillis() + 200).highWaterMillis())
                .isEqualTo(sibling.highWaterMillis() + 200);
    }

    @Test
    void aLostRecordOfAFreeSlotIsTakenAfterANewSlotAndOnlyAboveRedisNowPlusGuard() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        store.createAgedNamespace(ns, 2, request(ns, 2, 0).layout(), TTL, SKEW);
        long ahead = redisNowMillis();
        WorkerLease first = manager.borrow(request(ns, 2, ahead));
        manager.giveBack(first, ahead);
        store.deleteSlotRecord(ns, 0);
        long redisNow = redisNowMillis();

        // the slot never used has the generation floor, set when the namespace began: lower than the lost one's
        WorkerLease fresh = manager.borrow(request(ns, 2, redisNow));
        assertThat(fresh.workerId()).isEqualTo(1);
        assertThat(fresh.floorMillis()).isLessThan(redisNow + TTL.toMillis() + SKEW.toMillis());
        WorkerLease reused = manager.borrow(request(ns, 2, redisNow));
        assertThat(reused.workerId()).isZero();
        assertThat(reused.floorMillis()).isGreaterThanOrEqualTo(redisNow + TTL.toMillis() + SKEW.toMillis());
        assertThat(store.jedis().hget(store.leaseKey(ns), "slots_created")).isEqualTo("2");
    }

    private LeaseRequest request(String ns, int slotCount, long workerNow) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, workerNow, SKEW, "test-host", 42,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, Integer.numberOfTrailingZeros(slotCount), 12)
                        .pinned());
    }

    private long redisNowMillis() {
        return (Long) store.jedis().eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }

    private void assertNoDuplicateAfterHandOver(String ns, String loss, Runnable lose) {
        ManualClock clockA = ManualClock.ofNow();
        AbstractIdWorker a = HandOver.start(store.newManager(), ns, clockA);
        workers.add(a);
        List<Long> idsOfA = HandOver.issue(a, clockA);
        long lastOfA = HandOver.lastTimestamp(idsOfA);
        a.close();
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(lastOfA);

        lose.run();

        HandOver.Successor b = HandOver.successor(store.newManager(), ns, idsOfA, workers, "partial loss (" + loss + ")");
        assertThat(b.duplicates()).as("identifiers of A issued again by B").isZero();
        assertThat(b.floorMillis()).isGreaterThanOrEqualTo(lastOfA);
    }
}
