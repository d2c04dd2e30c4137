package io.github.idworker.test.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.lease.redis.RedisSequenceManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the Redis centre does beyond the contract: keys, script loading, replies, errors and slot choice. */
class RedisSequenceManagerTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SKEW = Duration.ofMillis(500);

    private RedisSequenceManagerStore store;
    private final List<String> namespaces = new ArrayList<>();

    @BeforeEach
    void open() {
        store = RedisSequenceManagerStore.embedded();
    }

    @AfterEach
    void close() {
        namespaces.forEach(store::deleteNamespace);
        store.close();
    }

    private String newNamespace() {
        String ns = "r-" + UUID.randomUUID().toString().substring(0, 13);
        namespaces.add(ns);
        return ns;
    }

    private static LeaseRequest request(String ns, int slotCount, long workerNow) {
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, workerNow, SKEW, "host-a", 4242,
                SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, Integer.numberOfTrailingZeros(slotCount), 12).pinned());
    }

    @Test
    void keyPrefixMustBeNonBlankAndFreeOfBraces() {
        JedisScriptExecutor executor = new JedisScriptExecutor(store.jedis());
        for (String bad : new String[] {null, "", "  ", "{idworker}", "id{worker", "idworker}"}) {
            assertThatThrownBy(() -> new RedisSequenceManager(executor, bad))
                    .as(String.valueOf(bad))
                    .isInstanceOf(IdWorkerConfigurationException.class)
                    .hasMessageContaining("idworker.redis.key-prefix")
                    .satisfies(e -> assertThat(((IdWorkerConfigurationException) e).getProperty())
                            .isEqualTo("idworker.redis.key-prefix"));
        }
        assertThat(new RedisSequenceManager(executor, "idworker").leaseKey("ns1")).isEqualTo("{idworker:ns1}:lease");
    }

    @Test
    void oneHashHoldsMarkerLayoutCounterAndEverySlotRecord() {
        String ns = newNamespace();
        LeaseRequest request = request(ns, 8, System.currentTimeMillis());
        WorkerLease lease = store.newManager().borrow(request);
        String key = store.leaseKey(ns);
        assertThat(key).isEqualTo("{idworker-test:" + ns + "}:lease");
        assertThat(store.jedis().keys("{idworker-test:" + ns + "}*")).containsExactly(key);
        Map<String, String> hash = store.jedis().hgetAll(key);
        assertThat(hash).containsOnlyKeys("id", "run_id", "floor", "guard", "ms", "layout", "slots_created",
                Integer.toString(lease.workerId()));
        assertThat(hash.get("id")).isEqualTo(lease.generation());
        assertThat(hash.get("layout")).isEqualTo(request.layout());
        assertThat(hash.get("slots_created")).isEqualTo("1");
        RedisSequenceManagerStore.SlotRecord record = store.slotRecord(ns, lease.workerId());
        assertThat(record.highWater()).isEqualTo(lease.highWaterMillis());
        assertThat(record.owner()).isEqualTo(lease.owner());
        assertThat(record.expires()).isGreaterThan(System.currentTimeMillis());
        assertThat(record.info()).contains("host=host-a").contains("pid=4242").contains("started=");
        assertThat(lease.ttl()).isEqualTo(TTL);
    }

    @Test
    void ownerTokensThatWouldBreakTheRecordFormatAreRefused() {
        String ns = newNamespace();
        LeaseRequest bad = new LeaseRequest(ns, 2, "a|b", TTL, System.currentTimeMillis(), SKEW, "h", 1,
                request(ns, 2, 0).layout());
        assertThatThrownBy(() -> store.newManager().borrow(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner");
        assertThat(store.jedis().exists(store.leaseKey(ns))).isFalse();
    }

    @Test
    void aNamespaceKeepsTheLayoutOfItsFirstBorrowAndRefusesOthersWithoutClaimingAnything() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        LeaseRequest first = request(ns, 1024, System.currentTimeMillis());
        manager.borrow(first);
        Map<String, String> before = store.jedis().hgetAll(store.leaseKey(ns));

        String epochMovedOneDay = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH.plus(Duration.ofDays(1)), 41, 10, 12)
                .pinned();
        String splitMoved = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 9, 13).pinned();
        for (String other : List.of(epochMovedOneDay, splitMoved)) {
            int slots = other.equals(splitMoved) ? 512 : 1024;
            LeaseRequest refused = new LeaseRequest(ns, slots, UUID.randomUUID().toString(), TTL,
                    System.currentTimeMillis(), SKEW, "host-b", 7, other);
            assertThatThrownBy(() -> store.newManager().borrow(refused))
                    .isInstanceOf(LayoutMismatchException.class)
                    .hasMessageContaining("'" + ns + "'")
                    .hasMessageContaining(first.layout())
                    .hasMessageContaining(other)
                    .satisfies(e -> {
                        LayoutMismatchException m = (LayoutMismatchException) e;
                        assertThat(m.getPinnedLayout()).isEqualTo(first.layout());
                        assertThat(m.getRequestedLayout()).isEqualTo(other);
                    });
        }
        assertThat(store.jedis().hgetAll(store.leaseKey(ns))).isEqualTo(before);
        assertThat(store.newManager().borrow(request(ns, 1024, System.currentTimeMillis())).workerId()).isEqualTo(1);
    }

    @Test
    void aNamespaceLostAsAWholeAlsoLosesItsPinnedLayout() {
        String ns = newNamespace();
        store.newManager().borrow(request(ns, 4, System.currentTimeMillis()));
        store.deleteNamespace(ns);
        String other = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 1, 13).pinned();
        store.newManager().borrow(new LeaseRequest(ns, 2, UUID.randomUUID().toString(), TTL,
                System.currentTimeMillis(), SKEW, "host-b", 7, other));
        assertThat(store.jedis().hget(store.leaseKey(ns), "layout")).isEqualTo(other);
    }

    @Test
    void liveLeasesInTheKeysOfAnEarlierVersionRefuseABorrowUntilTheyAreReturned() {
        String ns = newNamespace();
        String oldOwners = "{idworker-test:" + ns + "}:owner";
        String oldExpires = "{idworker-test:" + ns + "}:expires";
        try {
            // what a worker of the five-key version holds: owner and lease end per slot
            store.jedis().hset(oldOwners, "3", "old-worker");
            store.jedis().hset(oldExpires, "3", Long.toString(System.currentTimeMillis() + 60_000));
            assertThatThrownBy(() -> store.newManager().borrow(request(ns, 4, System.currentTimeMillis())))
                    .isInstanceOf(IdWorkerConfigurationException.class)
                    .hasMessageContaining("'" + ns + "'")
                    .hasMessageContaining("1 live lease")
                    .hasMessageContaining("Stop every worker")
                    .satisfies(e -> assertThat(((IdWorkerConfigurationException) e).getProperty())
                            .isEqualTo("idworker.namespace"));
            assertThat(store.jedis().exists(store.leaseKey(ns))).isFalse();

            // the old worker returned its slot the old way: owner removed, lease end 0
            store.jedis().hdel(oldOwners, "3");
            store.jedis().hset(oldExpires, "3", "0");
            assertThat(store.newManager().borrow(request(ns, 4, System.currentTimeMillis())).workerId()).isZero();
        } finally {
            store.jedis().del(oldOwners, oldExpires);
        }
    }

    @Test
    void scriptsAreLoadedAgainAfterRedisForgetsThem() throws InterruptedException {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        WorkerLease lease = manager.borrow(request(ns, 4, System.currentTimeMillis()));
        store.jedis().scriptFlush();
        // a new namespace's first high-water is the loss floor (Redis clock + ttl + max-skew) + 1: a raise is
        // believed once the Redis clock has moved on (DESIGN rule 13)
        Thread.sleep(20);
        WorkerLease renewed = manager.renew(lease, lease.highWaterMillis() + 7);
        assertThat(renewed.highWaterMillis()).isEqualTo(lease.highWaterMillis() + 7);
        store.jedis().scriptFlush();
        assertThat(manager.borrow(request(ns, 4, System.currentTimeMillis())).workerId())
                .isNotEqualTo(lease.workerId());
        store.jedis().scriptFlush();
        manager.giveBack(renewed, renewed.highWaterMillis());
        assertThat(store.storedOwner(ns, lease.workerId())).isNull();
    }

    @Test
    void prefersFreeSlotsWhoseHighWaterIsPastThenTheLowestHighWater() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        // a namespace in use for a while: its generation floor lies in the past
        store.createAgedNamespace(ns, 5, request(ns, 5, 0).layout(), TTL, SKEW);
        long now = store.centreNowMillis();
        List<WorkerLease> leases = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            leases.add(manager.borrow(request(ns, 5, now)));
        }
        assertThat(leases).extracting(WorkerLease::workerId).containsExactly(0, 1, 2, 3);
        manager.giveBack(leases.get(0), now + 500_000);
        manager.giveBack(leases.get(1), now + 400_000);
        manager.giveBack(leases.get(2), now - 1_000);

        // slot 2 is free and already behind the clock; slot 4 was never used (its floor is the generation's)
        WorkerLease past = manager.borrow(request(ns, 5, now));
        assertThat(past.workerId()).isEqualTo(2);
        assertThat(past.floorMillis()).isEqualTo(now - 1_000);
        assertThat(manager.borrow(request(ns, 5, now)).workerId()).isEqualTo(4);

        // only slots whose high-water lies ahead are left: the lowest high-water wins, whatever its id
        WorkerLease ahead = manager.borrow(request(ns, 5, now));
        assertThat(ahead.workerId()).isEqualTo(1);
        assertThat(ahead.floorMillis()).isEqualTo(now + 400_000);
        assertThat(ahead.highWaterMillis()).isGreaterThan(ahead.floorMillis());
        assertThat(store.storedHighWater(ns, 1)).isEqualTo(ahead.highWaterMillis());
    }

    @Test
    void lostRenewalNamesNamespaceAndWorkerId() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        WorkerLease lease = manager.borrow(request(ns, 1, System.currentTimeMillis()));
        store.expireLease(ns, lease.workerId());
        manager.borrow(request(ns, 1, System.currentTimeMillis()));
        assertThatThrownBy(() -> manager.renew(lease, lease.highWaterMillis() + 1))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("'" + ns + "'")
                .hasMessageContaining("Worker id " + lease.workerId());
    }

    @Test
    void repliesAsBytesAreReadLikeStrings() throws InterruptedException {
        String ns = newNamespace();
        RedisScriptExecutor jedis = new JedisScriptExecutor(store.jedis());
        RedisScriptExecutor asBytes = (script, keys, args) -> {
            List<Object> reply = new ArrayList<>();
            for (Object o : jedis.execute(script, keys, args)) {
                reply.add(o instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : o);
            }
            return reply;
        };
        RedisSequenceManager manager = new RedisSequenceManager(asBytes, "idworker-test");
        WorkerLease lease = manager.borrow(request(ns, 2, System.currentTimeMillis()));
        assertThat(lease.generation()).isEqualTo(store.jedis().hget(store.leaseKey(ns), "id"));
        Thread.sleep(20);
        assertThat(manager.renew(lease, lease.highWaterMillis() + 7).highWaterMillis())
                .isEqualTo(lease.highWaterMillis() + 7);
        manager.giveBack(lease, lease.floorMillis() + 1);
        assertThat(store.storedOwner(ns, lease.workerId())).isNull();
    }

    @Test
    void unreachableRedisIsCenterUnavailableNamingTheEndpoint() {
        int port = RedisClusterSupport.freePort();
        try (UnifiedJedis nobody = RedisClient.create("127.0.0.1", port)) {
            RedisSequenceManager manager = new RedisSequenceManager(new JedisScriptExecutor(nobody), "idworker-test");
            assertThatThrownBy(() -> manager.borrow(request("unreachable", 2, System.currentTimeMillis())))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining(Integer.toString(port))
                    .hasMessageContaining("lease-borrow");
            RedisSequenceManager named = new RedisSequenceManager(
                    new JedisScriptExecutor(nobody, "cache.example:" + port), "idworker-test");
            assertThatThrownBy(() -> named.renew(new WorkerLease("unreachable", 0, "o", 0, 1, "g", TTL), 2))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining("cache.example:" + port);
        }
    }

    @Test
    void executorFailuresThatAreNotIdWorkerExceptionsBecomeCenterUnavailable() {
        RedisSequenceManager manager = new RedisSequenceManager((script, keys, args) -> {
            throw new IllegalStateException("connection reset");
        }, "idworker-test");
        assertThatThrownBy(() -> manager.borrow(request("broken", 2, System.currentTimeMillis())))
                .isInstanceOf(CenterUnavailableException.class)
                .hasMessageContaining("'broken'")
                .hasRootCauseMessage("connection reset");
    }

    /**
     * The borrow script checks a preferred slot itself: the Java side cannot send one outside the namespace's slots
     * (LeaseRequest refuses it), so the executor rewrites ARGV[9] on its way to Redis, as a caller of another version
     * or with a bug would send it. The script must refuse it before it writes anything; the manager maps that to the
     * configuration error of idworker.worker-id.preferred. Without the check the script claimed slot 8 of 8 and
     * wrote free records below it.
     */
    @Test
    void thePreferredSlotIsCheckedByTheScriptItselfAndAnOutOfRangeOneWritesNothing() {
        String ns = newNamespace();
        JedisScriptExecutor redis = new JedisScriptExecutor(store.jedis());
        for (String sent : new String[] {"8", "9", "1000", "-2", "2.5"}) {
            RedisSequenceManager manager = new RedisSequenceManager((script, keys, args) -> {
                List<String> rewritten = new ArrayList<>(args);
                if (script.name().equals("lease-borrow")) {
                    rewritten.set(8, sent);
                }
                return redis.execute(script, keys, rewritten);
            }, RedisSequenceManagerStore.TEST_PREFIX);
            assertThatThrownBy(() -> manager.borrow(request(ns, 8, System.currentTimeMillis()).withPreferredSlot(2)))
                    .as("preferred slot %s of 8", sent)
                    .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                            .isEqualTo("idworker.worker-id.preferred"))
                    .hasMessageContaining("allowed are 0 to 7")
                    .hasMessageContaining("'" + ns + "'");
            assertThat(store.jedis().exists(store.leaseKey(ns))).as("nothing written for %s", sent).isFalse();
        }
        // the same call with the slot the request names is claimed as before
        WorkerLease lease = store.newManager().borrow(request(ns, 8, System.currentTimeMillis()).withPreferredSlot(2));
        assertThat(lease.workerId()).isEqualTo(2);
    }
}
