package io.github.idworker.review;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.SnowflakeLayout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryForever;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every call ends within the operation timeout with a typed exception when ZooKeeper is gone, not after the client's
 * own connection timeout (15 s) or retries (for ever).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BoundedTimeTest {

    private static LeaseRequest request() {
        return new LeaseRequest("bt", 4, UUID.randomUUID().toString(), Duration.ofSeconds(5), System.currentTimeMillis(),
                Duration.ofMillis(100), "h", 1, SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
    }

    /** The manager's operation timeout here. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofMillis(1_200);

    /**
     * The longest a call may take: the operation timeout + 1.1 s, for a 2-core machine under a full build, which
     * stalls a thread for hundreds of milliseconds. It stays below two operation timeouts (2.4 s), so a call that
     * gave a retry a whole timeout of its own still fails it, and far below the 15 s connection timeout and the
     * endless retries of the client, which a call that ignored its timeout would wait out.
     */
    private static final long BOUND_MS = OPERATION_TIMEOUT.toMillis() * 2 - 100;

    private static long millisOf(Runnable r) {
        long t0 = System.nanoTime();
        try {
            r.run();
        } catch (CenterUnavailableException expected) {
            // typed
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void serverGoneMidLeaseAndNeverReachable() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        TestingServer server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, 1_000), true);
        // an application client that would retry for ever on its own: the manager must not inherit that
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(20_000).connectionTimeoutMs(15_000).retryPolicy(new RetryForever(100)).build();
        client.start();
        ZookeeperSequenceManager m = new ZookeeperSequenceManager(client, "/bt", OPERATION_TIMEOUT);
        WorkerLease lease = m.borrow(request());
        server.stop();
        long renew = millisOf(() -> m.renew(lease, System.currentTimeMillis() + 5_000));
        long giveBack = millisOf(() -> m.giveBack(lease, lease.floorMillis()));
        long borrow = millisOf(() -> m.borrow(request()));
        assertThatThrownBy(() -> m.borrow(request())).isInstanceOf(CenterUnavailableException.class);
        System.out.printf("server stopped: renew %d ms, giveBack %d ms, borrow %d ms (timeout %d ms)%n", renew, giveBack,
                borrow, OPERATION_TIMEOUT.toMillis());
        client.close();
        server.close();

        CuratorFramework never = CuratorFrameworkFactory.builder().connectString("10.255.255.1:2181")
                .sessionTimeoutMs(20_000).connectionTimeoutMs(15_000).retryPolicy(new RetryForever(100)).build();
        never.start();
        ZookeeperSequenceManager n = new ZookeeperSequenceManager(never, "/bt", OPERATION_TIMEOUT);
        long unreachable = millisOf(() -> n.borrow(request()));
        System.out.printf("unroutable address: borrow %d ms%n", unreachable);
        never.close();
        assertThat(renew).isLessThan(BOUND_MS);
        assertThat(giveBack).isLessThan(BOUND_MS);
        assertThat(borrow).isLessThan(BOUND_MS);
        assertThat(unreachable).isLessThan(BOUND_MS);
    }
}
