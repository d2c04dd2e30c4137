package io.github.idworker.test.service;

import org.junit.jupiter.api.Tag;
import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.service.RequestAuthenticator;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import io.github.idworker.service.UnauthorizedException;
import io.github.idworker.service.UnauthorizedException.Reason;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.test.redis.RedisClusterSupport;
import io.github.idworker.test.redis.RedisTestClients;
import io.github.idworker.test.service.redis.RedisRequestGateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.MigrateParams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A signed call captured and replayed after the nonce store lost its nonce stays refused: two instances
 * ({@link RequestAuthenticator} over {@code redis-server} processes of this test's own) admit a call once and
 * refuse its replay; then Redis loses the nonce — killed and restarted empty, or a replica promoted that never got
 * the nonce's write — and the replay is still refused ({@link Reason#STORE_RESET}), as is a fresh call stamped
 * before the new identity's start plus the reset guard (2 s here); fresh calls stamped after it are admitted again.
 * Before the fix, the replay was admitted after the loss. A restart that lost nothing (append-only file) or a
 * resharding that moved the keys along refuses no correctly timed call once the guard has passed since the restart
 * (at once after a resharding); before that fix, each application's first call after it started a guard of its own.
 */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RequestGateStoreLossTest {

    private static final String PATH = "/pools/user/ids";
    private static final String QUERY = "count=3";
    private static final Duration WINDOW = Duration.ofMinutes(5);
    private static final Duration GUARD = Duration.ofSeconds(2);

    private Path dir;
    private final List<Process> servers = new ArrayList<>();
    private final List<RedisRequestGateStore> stores = new ArrayList<>();
    private final List<UnifiedJedis> clients = new ArrayList<>();
    private JdbcAppStoreStore db;
    private ServiceApps apps;
    private ServiceApp demo;
    private RequestSigner signer;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("idworker-gate-loss-");
        db = new JdbcAppStoreStore("jdbc:h2:mem:gate-loss;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
        apps = new ServiceApps(db.newStore(), Duration.ofMinutes(1));
        String secret = "S3cret_" + UUID.randomUUID().toString().replace("-", "");
        demo = ServiceApp.builder("loss-" + UUID.randomUUID().toString().substring(0, 8)).secret(secret)
                .entities("user").maxPerSecond(1_000).build();
        apps.register(demo);
        signer = new RequestSigner(demo.appKey(), secret);
    }

    @AfterEach
    void close() throws Exception {
        try {
            apps.close();
            closeStores();
            clients.forEach(UnifiedJedis::close);
        } finally {
            db.close();
            for (Process server : servers) {
                RedisClusterSupport.kill(server);
            }
            RedisClusterSupport.deleteRecursively(dir);
        }
    }

    private void closeStores() throws Exception {
        for (RedisRequestGateStore store : stores) {
            store.close();
        }
        stores.clear();
    }

    private Process startRedis(int port) throws Exception {
        Process server = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, List.of());
        servers.add(server);
        return server;
    }

    /**
     * An instance of the service over the Redis on {@code port} under {@code prefix}, with a client of its own. Its
     * keys are not deleted: they go with the test's own server.
     */
    private RequestAuthenticator instanceOn(int port, String prefix) {
        UnifiedJedis client = RedisTestClients.standalone("127.0.0.1", port);
        clients.add(client);
        return new RequestAuthenticator(apps, new RedisRequestGate(new JedisScriptExecutor(client), prefix), WINDOW,
                RequestAuthenticator.DEFAULT_CLOCK_TOLERANCE, GUARD, System::currentTimeMillis);
    }

    private static String newPrefix() {
        return "idworker-test-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Two instances of the service over the Redis on {@code port}, each with a client of its own. */
    private List<RequestAuthenticator> instancesOn(int port) {
        RedisRequestGateStore store = new RedisRequestGateStore(() -> RedisTestClients.standalone("127.0.0.1", port));
        stores.add(store);
        return List.of(newInstance(store), newInstance(store));
    }

    private RequestAuthenticator newInstance(RedisRequestGateStore store) {
        return new RequestAuthenticator(apps, store.newGate(), WINDOW, RequestAuthenticator.DEFAULT_CLOCK_TOLERANCE,
                GUARD, System::currentTimeMillis);
    }

    private Map<String, String> signed(long timestamp) {
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(signer.sign("GET", PATH, QUERY, timestamp, RequestSigner.newNonce()));
        return headers;
    }

    private static void admitted(RequestAuthenticator instance, Map<String, String> call) {
        assertThat(instance.authenticate("GET", PATH, QUERY, call::get, "user", 3).appKey()).isNotBlank();
    }

    /** Admitted, or an assertion failure naming the reason it was refused. */
    private static void admittedAtOnce(RequestAuthenticator instance, Map<String, String> call) {
        try {
            admitted(instance, call);
        } catch (UnauthorizedException e) {
            throw new AssertionError("refused: " + e.getReason(), e);
        }
    }

    private static void refused(RequestAuthenticator instance, Map<String, String> call, Reason reason) {
        assertThatThrownBy(() -> instance.authenticate("GET", PATH, QUERY, call::get, "user", 3))
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> assertThat(e.getReason()).isEqualTo(reason))
                .hasMessage("unauthorized");
    }

    /**
     * Fresh calls, stamped now, until one is admitted: the first after the Redis identity's start plus the guard.
     * Returns its timestamp.
     */
    private long firstFreshCallAdmitted(RequestAuthenticator instance) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            long timestamp = System.currentTimeMillis();
            try {
                admitted(instance, signed(timestamp));
                return timestamp;
            } catch (UnauthorizedException e) {
                assertThat(e.getReason()).isEqualTo(Reason.STORE_RESET);
                assertThat(System.nanoTime()).as("a fresh call admitted within 20 s").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    @Test
    void aReplayStaysRefusedAfterRedisRestartsEmpty() throws Exception {
        int port = RedisClusterSupport.freePort();
        Process redis = startRedis(port);
        List<RequestAuthenticator> instances = instancesOn(port);
        firstFreshCallAdmitted(instances.get(0));
        Map<String, String> captured = signed(System.currentTimeMillis());
        admitted(instances.get(0), captured);
        refused(instances.get(0), captured, Reason.REPLAY);
        refused(instances.get(1), captured, Reason.REPLAY);

        closeStores(); // their keys go with the crash
        long killedAt = System.currentTimeMillis();
        RedisClusterSupport.kill(redis);
        servers.remove(redis);
        startRedis(port); // empty: no snapshot, no append-only file
        List<RequestAuthenticator> after = instancesOn(port);
        refused(after.get(0), captured, Reason.STORE_RESET);
        refused(after.get(1), captured, Reason.STORE_RESET);
        refused(after.get(1), signed(killedAt + GUARD.toMillis() - 500), Reason.STORE_RESET);

        long first = firstFreshCallAdmitted(after.get(1));
        System.out.printf("Redis restarted empty: the first fresh call admitted was stamped %d ms after the kill "
                + "(guard %d ms)%n", first - killedAt, GUARD.toMillis());
        assertThat(first).as("stamped at least the guard after the restart").isGreaterThanOrEqualTo(
                killedAt + GUARD.toMillis());
        refused(after.get(0), captured, Reason.STORE_RESET);
    }

    /**
     * A planned restart with persistence (append-only file) keeps the nonces, yet draws a new identity: the
     * application's first call after the restart — however late it comes — must not start a new guard of its own.
     * Once the guard has passed since the restart, a freshly stamped call is admitted on its first try; calls
     * stamped before the restart plus the guard, the replay among them, stay refused. Before the fix, the first call
     * after the restart started the guard then: the fresh call was refused ({@code STORE_RESET}) for the whole guard
     * counted from it.
     */
    @Test
    void aCorrectCallIsAdmittedOnceTheGuardHasPassedSinceARestartWithPersistence() throws Exception {
        int port = RedisClusterSupport.freePort();
        List<String> aof = List.of("--appendonly", "yes", "--appendfsync", "always");
        Process redis = RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, aof);
        servers.add(redis);
        String prefix = newPrefix();
        RequestAuthenticator before = instanceOn(port, prefix);
        firstFreshCallAdmitted(before);
        Map<String, String> captured = signed(System.currentTimeMillis());
        admitted(before, captured);
        refused(before, captured, Reason.REPLAY);

        long restartedAt = System.currentTimeMillis();
        RedisClusterSupport.kill(redis);
        servers.remove(redis);
        servers.add(RedisClusterSupport.startServer(RedisClusterSupport.redisServerBinary(), port, dir, aof));
        RequestAuthenticator after = instanceOn(port, prefix);
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            assertThat(jedis.keys("*" + captured.get(RequestSigner.NONCE))).as("the nonce reloaded from the AOF")
                    .hasSize(1);
            assertThat(jedis.hget("{" + prefix + ":app:" + demo.appKey() + "}:epoch",
                    "id")).as("the marker of the identity before the restart, reloaded")
                    .isNotNull().isNotEqualTo(replId(jedis));
        }

        // past the guard since the restart: the process start is rounded up a second, and a second more for slack
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(
                Math.max(0, restartedAt + GUARD.toMillis() + 2_000 - System.currentTimeMillis())));
        refused(after, signed(restartedAt + GUARD.toMillis() - 500), Reason.STORE_RESET);
        admittedAtOnce(after, signed(System.currentTimeMillis()));
        refused(after, captured, Reason.STORE_RESET);
        refused(instanceOn(port, prefix), captured, Reason.STORE_RESET);
    }

    /**
     * A resharding moves the application's keys (marker and nonces together, one hash tag) to a node that has run
     * longer: a fresh call is admitted there at once and the replay is refused (its nonce moved along); a call
     * stamped before the first node's start plus the guard stays refused (the marker's start is kept: nonces recorded
     * before it may have been lost on the first node). Before the fix, the node started a new guard: 401s for the
     * whole guard with nothing lost.
     */
    @Test
    void aReshardingThatMovesTheKeysRefusesNoCorrectCall() throws Exception {
        int portB = RedisClusterSupport.freePort();
        startRedis(portB);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3_000)); // B's process starts well before A's
        int portA = RedisClusterSupport.freePort();
        long aStartedAt = System.currentTimeMillis();
        startRedis(portA);
        String prefix = newPrefix();
        RequestAuthenticator onA = instanceOn(portA, prefix);
        firstFreshCallAdmitted(onA);
        Map<String, String> captured = signed(System.currentTimeMillis());
        admitted(onA, captured);

        try (Jedis a = new Jedis("127.0.0.1", portA)) {
            String[] keys = a.keys("{" + prefix + ":app:" + demo.appKey() + "}:*").toArray(String[]::new);
            assertThat(keys).as("marker and nonces").hasSizeGreaterThanOrEqualTo(2);
            assertThat(a.migrate("127.0.0.1", portB, 0, 5_000, new MigrateParams(), keys)).isEqualTo("OK");
        }
        RequestAuthenticator onB = instanceOn(portB, prefix);
        refused(onB, signed(aStartedAt + GUARD.toMillis() - 500), Reason.STORE_RESET);
        admittedAtOnce(onB, signed(System.currentTimeMillis()));
        refused(onB, captured, Reason.REPLAY);
    }

    private static String replId(Jedis jedis) {
        String info = jedis.info("replication");
        int i = info.indexOf("master_replid:") + "master_replid:".length();
        return info.substring(i, info.indexOf('\r', i));
    }

    /**
     * A is master, B its replica. B is promoted while A still admits a call (the nonce's write never reaches B);
     * the instances move to B: the replay of that call is refused there, as is a replay of a call B did get.
     */
    @Test
    void aReplayStaysRefusedOnAReplicaPromotedWithoutTheNoncesWrite() throws Exception {
        int portA = RedisClusterSupport.freePort();
        startRedis(portA);
        int portB = RedisClusterSupport.freePort();
        startRedis(portB);
        try (Jedis a = new Jedis("127.0.0.1", portA); Jedis b = new Jedis("127.0.0.1", portB)) {
            b.replicaof("127.0.0.1", portA);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!b.info("replication").contains("master_link_status:up")) {
                assertThat(System.nanoTime()).as("replication link up within 20 s").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            List<RequestAuthenticator> onA = instancesOn(portA);
            firstFreshCallAdmitted(onA.get(0));
            Map<String, String> replicated = signed(System.currentTimeMillis());
            admitted(onA.get(0), replicated);
            assertThat(a.waitReplicas(1, 5_000)).as("replicated to B").isEqualTo(1);

            long promotedAt = System.currentTimeMillis();
            b.replicaofNoOne(); // B promoted; A has not heard and still admits calls
            Map<String, String> lost = signed(System.currentTimeMillis());
            admitted(onA.get(1), lost);
            refused(onA.get(0), lost, Reason.REPLAY);

            List<RequestAuthenticator> onB = instancesOn(portB); // the instances follow the promotion
            assertThat(b.keys("*" + lost.get(RequestSigner.NONCE))).as("B never got the nonce's write").isEmpty();
            refused(onB.get(0), lost, Reason.STORE_RESET);
            refused(onB.get(1), lost, Reason.STORE_RESET);
            refused(onB.get(1), replicated, Reason.STORE_RESET);

            long first = firstFreshCallAdmitted(onB.get(0));
            assertThat(first).as("stamped at least the guard after the promotion").isGreaterThanOrEqualTo(
                    promotedAt + GUARD.toMillis());
            refused(onB.get(1), lost, Reason.STORE_RESET);
        }
    }
}
