package io.github.idworker.test.redis;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.redis.RedisSequenceManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        store = new RedisSequenceManagerStore(EmbeddedRedisSupport.newClient(), "idworker-test", true);
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
        return new LeaseRequest(ns, slotCount, UUID.randomUUID().toString(), TTL, workerNow, SKEW, "host-a", 4242);
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
        assertThat(new RedisSequenceManager(executor, "idworker").keyOf("ns1", "hw")).isEqualTo("{idworker:ns1}:hw");
    }

    @Test
    void allKeysOfANamespaceShareOneHashTagAndRecordWhoHoldsTheSlot() {
        String ns = newNamespace();
        WorkerLease lease = store.newManager().borrow(request(ns, 8, System.currentTimeMillis()));
        Set<Integer> clusterSlots = new HashSet<>();
        for (String part : RedisSequenceManagerStore.PARTS) {
            String key = store.keyOf(ns, part);
            assertThat(key).startsWith("{idworker-test:" + ns + "}:");
            assertThat(store.jedis().exists(key)).as(key).isTrue();
            clusterSlots.add(JedisClusterCRC16.getSlot(key));
        }
        assertThat(clusterSlots).hasSize(1);
        String info = store.jedis().hget(store.keyOf(ns, "info"), Integer.toString(lease.workerId()));
        assertThat(info).contains("host=host-a").contains("pid=4242").contains("started=");
        Map<String, String> gen = store.jedis().hgetAll(store.keyOf(ns, "gen"));
        assertThat(gen).containsKeys("id", "run_id", "floor", "guard", "ms");
        assertThat(gen.get("id")).isEqualTo(lease.generation());
        assertThat(lease.ttl()).isEqualTo(TTL);
    }

    @Test
    void scriptsAreLoadedAgainAfterRedisForgetsThem() {
        String ns = newNamespace();
        RedisSequenceManager manager = store.newManager();
        WorkerLease lease = manager.borrow(request(ns, 4, System.currentTimeMillis()));
        store.jedis().scriptFlush();
        WorkerLease renewed = manager.renew(lease, lease.highWaterMillis() + 1_000);
        assertThat(renewed.highWaterMillis()).isEqualTo(lease.highWaterMillis() + 1_000);
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
        long now = System.currentTimeMillis() + 200_000; // past the floor a new namespace starts with
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
        WorkerLease lease = manager.borrow(request(ns, 2, System.currentTimeMillis()));
        store.expireLease(ns, lease.workerId());
        manager.borrow(request(ns, 1, System.currentTimeMillis()));
        assertThatThrownBy(() -> manager.renew(lease, lease.highWaterMillis() + 1))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("'" + ns + "'")
                .hasMessageContaining("Worker id " + lease.workerId());
    }

    @Test
    void repliesAsBytesAreReadLikeStrings() {
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
        assertThat(lease.generation()).isEqualTo(store.jedis().hget(store.keyOf(ns, "gen"), "id"));
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
}
