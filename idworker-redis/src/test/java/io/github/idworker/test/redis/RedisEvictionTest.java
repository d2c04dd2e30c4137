package io.github.idworker.test.redis;

import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.redis.RedisSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.test.ManualClock;
import io.github.idworker.test.StderrLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that evicts keys ({@code maxmemory-policy allkeys-lru}) shared with a cache: the centre warns at the
 * first borrow, and when memory pressure really evicts a namespace's lease hash, the next holder of a slot
 * issues none of the identifiers its previous holder issued, although its clock is behind that holder's.
 * Runs a {@code redis-server} of its own ({@link RedisClusterSupport#redisServerBinary()}: the one on the PATH,
 * else the binary bundled with embedded-redis), so it needs nothing installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisEvictionTest {

    private static final String JUNK = "x".repeat(1_024);
    /** Far more junk than the server's memory holds: the bound on the fill loop. */
    private static final int MAX_JUNK_KEYS = 100_000;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private RedisSequenceManagerStore evictingStore() throws Exception {
        PrivateRedisServer server = PrivateRedisServer.start(
                List.of("--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru"));
        toClose.add(server);
        RedisSequenceManagerStore store = new RedisSequenceManagerStore(server.newClient(), RedisSequenceManagerStore.TEST_PREFIX, true);
        toClose.add(store);
        return store;
    }

    @Test
    void evictedNamespaceHashMakesTheNextHolderWaitInsteadOfReissuing() throws Exception {
        RedisSequenceManagerStore store = evictingStore();
        String ns = "e-" + UUID.randomUUID().toString().substring(0, 13);
        List<AbstractIdWorker> workers = new ArrayList<>();
        toClose.add(() -> workers.forEach(AbstractIdWorker::close));

        ManualClock clockA = ManualClock.ofNow();
        RedisSequenceManager managerA = store.newManager();
        String log = StderrLog.during(() -> workers.add(HandOver.start(managerA, ns, clockA)));
        assertThat(log).contains("WARN").contains("maxmemory-policy allkeys-lru").contains(store.leaseKey(ns))
                .contains("ttl + max-skew").contains("noeviction");
        AbstractIdWorker a = workers.get(0);
        List<Long> idsOfA = HandOver.issue(a, clockA);
        long lastOfA = HandOver.lastTimestamp(idsOfA);

        int junkKeys = fillUntilGone(store.jedis(), store.leaseKey(ns));
        assertThat(store.jedis().exists(store.leaseKey(ns))).as("lease hash evicted").isFalse();
        a.close();

        HandOver.Successor b = HandOver.successor(store.newManager(), ns, idsOfA, workers,
                "allkeys-lru eviction after " + junkKeys + " junk keys of 1 KiB (maxmemory 4mb)");
        assertThat(b.duplicates()).as("identifiers of A issued again by B").isZero();
        assertThat(b.floorMillis()).isGreaterThan(lastOfA);
    }

    @Test
    void theEvictionWarningIsLoggedOncePerManager() throws Exception {
        RedisSequenceManagerStore store = evictingStore();
        RedisSequenceManager manager = store.newManager();
        String ns = "e-" + UUID.randomUUID().toString().substring(0, 13);
        String twoBorrows = StderrLog.during(() -> {
            manager.borrow(request(ns));
            manager.borrow(request(ns));
        });
        assertThat(twoBorrows.split("maxmemory-policy allkeys-lru", -1)).hasSize(2);
        assertThat(StderrLog.during(() -> store.newManager().borrow(request(ns))))
                .contains("maxmemory-policy allkeys-lru");
    }

    @Test
    void noWarningForARedisThatDoesNotEvict() {
        RedisSequenceManagerStore store = RedisSequenceManagerStore.embedded();
        toClose.add(store);
        String ns = "e-" + UUID.randomUUID().toString().substring(0, 13);
        toClose.add(() -> store.deleteNamespace(ns));
        assertThat(store.jedis().eval("return string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)')"))
                .isEqualTo("noeviction");
        assertThat(StderrLog.during(() -> store.newManager().borrow(request(ns)))).doesNotContain("maxmemory-policy");
    }

    private static LeaseRequest request(String ns) {
        return new LeaseRequest(ns, 4, UUID.randomUUID().toString(), Duration.ofSeconds(30), System.currentTimeMillis(),
                Duration.ofMillis(500), "test-host", 42, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
    }

    /** Writes 1 KiB junk keys, 200 at a time, until {@code key} is gone; returns how many it wrote. */
    private static int fillUntilGone(UnifiedJedis jedis, String key) {
        int written = 0;
        while (jedis.exists(key)) {
            assertThat(written).as("junk keys written without evicting " + key).isLessThan(MAX_JUNK_KEYS);
            try (AbstractPipeline pipeline = jedis.pipelined()) {
                for (int i = 0; i < 200; i++) {
                    pipeline.set("junk:" + written++, JUNK);
                }
                pipeline.sync();
            }
        }
        return written;
    }
}
