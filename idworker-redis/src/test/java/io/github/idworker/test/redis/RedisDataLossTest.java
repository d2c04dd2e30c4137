package io.github.idworker.test.redis;

import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.redis.RedisSequenceManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DESIGN rule 7: after Redis loses or replaces a namespace's records, no lease of the old data is renewed and no
 * slot is handed out below what an old holder may still issue: the new floor is at least
 * {@code Redis now + ttl + max skew} and at least every high-water an old holder stored.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisDataLossTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);
    private static final String PREFIX = "idworker-test";

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private static String newNamespace() {
        return "d-" + UUID.randomUUID().toString().substring(0, 13);
    }

    private static LeaseRequest request(String ns, int slotCount) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, System.currentTimeMillis(), SKEW,
                "test-host", 42,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, Integer.numberOfTrailingZeros(slotCount), 12).pinned());
    }

    private static long redisNowMillis(UnifiedJedis jedis) {
        return (Long) jedis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }

    private RedisSequenceManagerStore embeddedStore(String ns) {
        RedisSequenceManagerStore store = RedisSequenceManagerStore.embedded();
        toClose.add(store);
        toClose.add(() -> store.deleteNamespace(ns)); // runs before the store closes: closed last to first
        return store;
    }

    private PrivateRedisServer startServer() throws Exception {
        PrivateRedisServer server = PrivateRedisServer.start(List.of());
        toClose.add(server);
        return server;
    }

    private RedisSequenceManagerStore storeOn(PrivateRedisServer server) {
        RedisSequenceManagerStore store = new RedisSequenceManagerStore(server.newClient(), PREFIX, true);
        toClose.add(store);
        return store;
    }

    /** What the old holder may issue up to, and what any new holder must start above. */
    private static void assertNewLeaseIsAboveOldHolder(WorkerLease fresh, long redisNowAfterLoss, long oldHighWater) {
        assertThat(fresh.floorMillis()).isGreaterThanOrEqualTo(redisNowAfterLoss + TTL.toMillis() + SKEW.toMillis());
        assertThat(fresh.floorMillis()).isGreaterThanOrEqualTo(oldHighWater);
        assertThat(fresh.highWaterMillis()).isGreaterThan(fresh.floorMillis());
    }

    @Test
    void deletedRecordsEndOldLeasesAndLiftTheFloorOfNewOnes() {
        String ns = newNamespace();
        RedisSequenceManagerStore store = embeddedStore(ns);
        RedisSequenceManager holder = store.newManager();
        WorkerLease old = holder.borrow(request(ns, 1));
        old = holder.renew(old, System.currentTimeMillis() + TTL.toMillis());
        long oldHighWater = old.highWaterMillis();

        store.deleteNamespace(ns);
        long redisNow = redisNowMillis(store.jedis());

        WorkerLease lost = old;
        assertThatThrownBy(() -> holder.renew(lost, System.currentTimeMillis() + TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("'" + ns + "'")
                .hasMessageContaining("Worker id 0");
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(-1);

        WorkerLease fresh = store.newManager().borrow(request(ns, 1));
        assertThat(fresh.workerId()).isZero();
        assertThat(fresh.generation()).isNotEqualTo(old.generation());
        assertNewLeaseIsAboveOldHolder(fresh, redisNow, oldHighWater);

        // the old holder stays locked out and cannot free or lower its successor's slot
        assertThatThrownBy(() -> holder.renew(lost, System.currentTimeMillis() + TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class);
        holder.giveBack(lost, lost.floorMillis());
        assertThat(store.storedOwner(ns, 0)).isEqualTo(fresh.owner());
        assertThat(store.storedHighWater(ns, 0)).isEqualTo(fresh.highWaterMillis());
    }

    @Test
    void twoLossesInARowStillCoverTheHolderThatBorrowedInBetween() {
        String ns = newNamespace();
        RedisSequenceManagerStore store = embeddedStore(ns);
        RedisSequenceManager manager = store.newManager();
        manager.borrow(request(ns, 2));
        store.deleteNamespace(ns);
        // borrowed right after the first loss: its floor lies ahead, and so does its high-water
        WorkerLease between = manager.borrow(request(ns, 2));
        assertThat(between.floorMillis()).isGreaterThan(System.currentTimeMillis());
        store.deleteNamespace(ns);
        long redisNow = redisNowMillis(store.jedis());
        WorkerLease after = manager.borrow(request(ns, 2));
        assertThat(after.workerId()).isEqualTo(between.workerId());
        assertNewLeaseIsAboveOldHolder(after, redisNow, between.highWaterMillis());
    }

    @Test
    void restartedRedisProcessWithoutPersistenceEndsOldLeasesAndLiftsTheFloor() throws Exception {
        PrivateRedisServer server = startServer();
        String ns = newNamespace();
        RedisSequenceManagerStore before = storeOn(server);
        RedisSequenceManager holder = before.newManager();
        WorkerLease old = holder.borrow(request(ns, 4));
        old = holder.renew(old, System.currentTimeMillis() + TTL.toMillis());
        String runIdBefore = before.jedis().hget(before.leaseKey(ns), "run_id");

        server.kill();
        server.startAgain();
        RedisSequenceManagerStore after = storeOn(server);
        long redisNow = redisNowMillis(after.jedis());
        assertThat(after.storedOwner(ns, old.workerId())).isNull();

        RedisSequenceManager holderAfterRestart = after.newManager();
        WorkerLease lost = old;
        assertThatThrownBy(() -> holderAfterRestart.renew(lost, System.currentTimeMillis() + TTL.toMillis()))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("'" + ns + "'");

        WorkerLease fresh = after.newManager().borrow(request(ns, 4));
        assertThat(fresh.workerId()).isEqualTo(old.workerId());
        assertThat(after.jedis().hget(after.leaseKey(ns), "run_id")).isNotEqualTo(runIdBefore);
        assertNewLeaseIsAboveOldHolder(fresh, redisNow, old.highWaterMillis());
    }

    @Test
    void restoredStaleSnapshotEndsOldLeasesAndLiftsTheFloorAboveWhatTheSnapshotMissed() throws Exception {
        PrivateRedisServer server = startServer();
        String ns = newNamespace();
        RedisSequenceManagerStore before = storeOn(server);
        RedisSequenceManager holder = before.newManager();
        WorkerLease inSnapshot = holder.borrow(request(ns, 2));
        before.jedis().sendCommand(Protocol.Command.SAVE);
        WorkerLease missed = holder.borrow(request(ns, 2));
        assertThat(missed.workerId()).isNotEqualTo(inSnapshot.workerId());

        server.kill();
        server.startAgain(); // loads dump.rdb from its directory: old marker, one lease, the other one missing
        RedisSequenceManagerStore after = storeOn(server);
        assertThat(after.storedOwner(ns, inSnapshot.workerId())).isEqualTo(inSnapshot.owner());
        assertThat(after.storedOwner(ns, missed.workerId())).isNull();
        assertThat(after.storedHighWater(ns, missed.workerId())).isEqualTo(-1);
        long redisNow = redisNowMillis(after.jedis());

        RedisSequenceManager holderAfterRestore = after.newManager();
        for (WorkerLease stale : List.of(inSnapshot, missed)) {
            assertThatThrownBy(() -> holderAfterRestore.renew(stale, stale.highWaterMillis() + 1_000))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("generation");
        }
        assertThat(after.storedHighWater(ns, inSnapshot.workerId())).isEqualTo(inSnapshot.highWaterMillis());

        // the slot the snapshot forgot is free again, but only above what its lost holder may issue
        WorkerLease fresh = after.newManager().borrow(request(ns, 2));
        assertThat(fresh.workerId()).isEqualTo(missed.workerId());
        assertNewLeaseIsAboveOldHolder(fresh, redisNow, missed.highWaterMillis());
        assertThat(fresh.floorMillis()).isGreaterThanOrEqualTo(inSnapshot.highWaterMillis());
        assertThat(fresh.generation()).isNotEqualTo(inSnapshot.generation());
    }

    @Test
    void changedRunIdWithDataKeptMakesRenewalFail() {
        String ns = newNamespace();
        RedisSequenceManagerStore store = embeddedStore(ns);
        RedisSequenceManager holder = store.newManager();
        WorkerLease old = holder.borrow(request(ns, 2));
        long floorBefore = Long.parseLong(store.jedis().hget(store.leaseKey(ns), "floor"));
        // what a restore of this data into another Redis process looks like to the scripts
        store.jedis().hset(store.leaseKey(ns), "run_id", "0000000000000000000000000000000000000000");
        long redisNow = redisNowMillis(store.jedis());

        assertThatThrownBy(() -> holder.renew(old, old.highWaterMillis() + 1_000))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("generation");
        assertThat(store.storedHighWater(ns, old.workerId())).isEqualTo(old.highWaterMillis());

        WorkerLease next = store.newManager().borrow(request(ns, 2));
        assertThat(next.workerId()).isNotEqualTo(old.workerId());
        assertThat(next.generation()).isNotEqualTo(old.generation());
        assertThat(next.floorMillis()).isGreaterThan(floorBefore);
        assertNewLeaseIsAboveOldHolder(next, redisNow, old.highWaterMillis());
        assertThatThrownBy(() -> holder.renew(old, old.highWaterMillis() + 1_000))
                .isInstanceOf(LeaseLostException.class);
    }
}
