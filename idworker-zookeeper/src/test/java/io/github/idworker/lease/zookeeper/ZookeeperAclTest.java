package io.github.idworker.lease.zookeeper;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The centre under creator-only ACLs on a real ZooKeeper server: every znode it creates carries the ACL its
 * {@link ACLProvider} gives, workers authenticated as the same identity share the namespace, and a client of
 * another identity gets a typed error at once instead of a repair loop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ZookeeperAclTest {

    private static final Duration TTL = Duration.ofMillis(900);
    private static final Duration SKEW = Duration.ofMillis(50);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final String LAYOUT = "epoch=1288834974657,ts=41,worker=2,seq=12";

    /** Creator-only, for every path: only clients authenticated as the creator may read, write or delete. */
    private static final ACLProvider CREATOR_ONLY = ZookeeperSequenceManager.sameAclEverywhere(ZooDefs.Ids.CREATOR_ALL_ACL);

    private final String basePath = "/idworker-acl-" + UUID.randomUUID().toString().substring(0, 8);
    private final String ns = "acl-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<CuratorFramework> clients = new ArrayList<>();

    private CuratorFramework client(String digestAuth) throws InterruptedException {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(EmbeddedZookeeper.connectString())
                .sessionTimeoutMs(6_000)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new RetryNTimes(3, 100));
        if (digestAuth != null) {
            builder.authorization("digest", digestAuth.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework client = builder.build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        clients.add(client);
        return client;
    }

    @AfterEach
    void deleteBasePath() throws Exception {
        try {
            CuratorFramework owner = client("idworker-acl-test:first-secret");
            if (owner.checkExists().forPath(basePath) != null) {
                owner.delete().deletingChildrenIfNeeded().forPath(basePath);
            }
        } finally {
            clients.forEach(CuratorFramework::close);
        }
    }

    private LeaseRequest request(String owner) {
        return new LeaseRequest(ns, 4, owner, TTL, System.currentTimeMillis(), SKEW, "test-host", 1, LAYOUT);
    }

    @Test
    void everyZnodeCarriesTheCreatorOnlyAclAndWorkersOfOneIdentityShareTheNamespace() throws Exception {
        ZookeeperSequenceManager first = new ZookeeperSequenceManager(client("idworker-acl-test:first-secret"),
                basePath, CALL_TIMEOUT, CREATOR_ONLY);
        ZookeeperSequenceManager second = new ZookeeperSequenceManager(client("idworker-acl-test:first-secret"),
                basePath, CALL_TIMEOUT, CREATOR_ONLY);

        WorkerLease a = first.borrow(request("owner-a"));
        WorkerLease b = second.borrow(request("owner-b"));
        assertThat(a.workerId()).isNotEqualTo(b.workerId());
        WorkerLease renewed = first.renew(a, System.currentTimeMillis() + TTL.toMillis());
        first.giveBack(renewed, System.currentTimeMillis());
        second.giveBack(b, System.currentTimeMillis());

        CuratorFramework owner = client("idworker-acl-test:first-secret");
        List<String> paths = tree(owner, basePath);
        assertThat(paths).contains(first.namespacePath(ns), first.slotPath(ns, a.workerId()),
                first.slotPath(ns, b.workerId()));
        for (String path : paths) {
            List<ACL> acls = owner.getACL().forPath(path);
            assertThat(acls).as("ACL of %s", path).hasSize(1);
            assertThat(acls.get(0).getId().getScheme()).as("scheme of %s", path).isEqualTo("digest");
            assertThat(acls.get(0).getId().getId()).as("identity of %s", path).startsWith("idworker-acl-test:");
            assertThat(acls.get(0).getPerms()).as("permissions of %s", path).isEqualTo(ZooDefs.Perms.ALL);
        }

        CuratorFramework anonymous = client(null);
        String slot = first.slotPath(ns, a.workerId());
        assertThatThrownBy(() -> anonymous.getData().forPath(slot)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> anonymous.setData().forPath(slot, new byte[0]))
                .isInstanceOf(KeeperException.NoAuthException.class);
    }

    @Test
    void anEmptyAclListIsRefusedNamingTheArgument() {
        assertThatThrownBy(() -> ZookeeperSequenceManager.sameAclEverywhere(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acls");
    }

    @Test
    void aWorkerOfAnotherIdentityIsRefusedWithATypedErrorAtOnce() throws Exception {
        ZookeeperSequenceManager owner = new ZookeeperSequenceManager(client("idworker-acl-test:first-secret"),
                basePath, CALL_TIMEOUT, CREATOR_ONLY);
        owner.giveBack(owner.borrow(request("owner-a")), System.currentTimeMillis());

        for (String auth : new String[] {"idworker-acl-test:wrong-secret", null}) {
            ZookeeperSequenceManager stranger = new ZookeeperSequenceManager(client(auth), basePath, CALL_TIMEOUT,
                    CREATOR_ONLY);
            long start = System.nanoTime();
            assertThatThrownBy(() -> stranger.borrow(request("stranger")))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining("NoAuth")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
            // refused by the first read, not after repairing a "lost" record until the operation timeout
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CALL_TIMEOUT);
        }
    }

    private static List<String> tree(CuratorFramework client, String root) throws Exception {
        List<String> paths = new ArrayList<>();
        paths.add(root);
        for (String child : client.getChildren().forPath(root)) {
            paths.addAll(tree(client, root.equals("/") ? "/" + child : root + "/" + child));
        }
        return paths;
    }
}
