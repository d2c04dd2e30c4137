package io.github.idworker.lease.zookeeper;

import io.github.idworker.test.lease.SequenceManagerStore;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The ZooKeeper centre seen by the contract kit, over a real server. Every store works under a base path of its
 * own and deletes it on close. Managers reach the servers through {@link PausableProxy} relays, each with a Curator
 * client (so a session) of its own, as separate processes would; the inspection hooks use a direct client of
 * their own and read and write the znodes themselves.
 *
 * <p>{@link #stall} pauses the proxies (one per ensemble member): every manager call waits for an answer that does not come, until the
 * call timeout or the client's connection timeout ends it. It stalls every manager of the store, not only calls
 * touching the slot.
 */
final class ZookeeperSequenceManagerStore implements SequenceManagerStore {

    static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
    static final int SESSION_TIMEOUT_MS = 6_000;
    static final int CONNECTION_TIMEOUT_MS = 3_000;

    private final String connectString;
    /** One relay per ensemble member; managers connect through all of them. */
    private final List<PausableProxy> proxies = new ArrayList<>();
    private final String proxiedConnectString;
    private final String basePath = "/idworker-test-" + UUID.randomUUID().toString().substring(0, 8);
    /** The inspector writes it before each read ({@link #readCurrent}); beside the base path, so no manager sees it. */
    private final String barrierPath = basePath + "-barrier";
    private final CuratorFramework inspector;
    private final ZookeeperSequenceManager paths;
    private final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();

    ZookeeperSequenceManagerStore(String connectString) throws Exception {
        this.connectString = connectString;
        List<String> relayed = new ArrayList<>();
        for (String member : connectString.split(",")) {
            PausableProxy proxy = new PausableProxy(Integer.parseInt(member.substring(member.lastIndexOf(':') + 1)));
            proxies.add(proxy);
            relayed.add(proxy.connectString());
        }
        this.proxiedConnectString = String.join(",", relayed);
        this.inspector = client(connectString);
        this.paths = new ZookeeperSequenceManager(inspector, basePath, CALL_TIMEOUT);
        inspector.create().forPath(barrierPath, new byte[0]);
    }

    /** A started Curator client with the tests' session and connection timeouts. */
    static CuratorFramework client(String connectString) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        return client;
    }

    String basePath() {
        return basePath;
    }

    /** The paths of the centre under test. */
    ZookeeperSequenceManager paths() {
        return paths;
    }

    /** A client through the proxy that the store closes; for managers the test builds itself. */
    CuratorFramework newClient() {
        CuratorFramework client = client(proxiedConnectString);
        clients.add(client);
        return client;
    }

    @Override
    public ZookeeperSequenceManager newManager() {
        return new ZookeeperSequenceManager(newClient(), basePath, CALL_TIMEOUT);
    }

    /** The stored record of a slot, or {@code null}. */
    SlotRecord slotRecord(String namespace, int workerId) {
        try {
            Current read = readCurrent(paths.slotPath(namespace, workerId));
            return read == null ? null : SlotRecord.parse(read.data());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the holder's ephemeral node of a slot exists. */
    boolean liveNodeExists(String namespace, int workerId) {
        try {
            return readCurrent(paths.livePath(namespace, workerId)) != null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Rewrites the slot's record with a ttl of -1 ms: the lease ended just before this write, by the centre's clock.
     * The record is read current ({@link #readCurrent}) and written only over the version read, again if it changed in
     * between: a plain read on an ensemble follower may still miss a borrow committed through another server, and
     * then no lease would end, or the write would meet a newer version.
     */
    @Override
    public void expireLease(String namespace, int workerId) {
        String path = paths.slotPath(namespace, workerId);
        try {
            for (int attempt = 1; ; attempt++) {
                Current read = readCurrent(path);
                SlotRecord r = read == null ? null : SlotRecord.parse(read.data());
                if (r == null) {
                    return;
                }
                try {
                    inspector.setData().withVersion(read.version()).forPath(path, new SlotRecord(r.highWater(), -1,
                            r.owner(), r.session(), r.host(), r.pid(), r.started(), r.repaired(), r.incarnation(),
                            r.floor()).encode());
                    return;
                } catch (KeeperException.BadVersionException changed) {
                    if (attempt == 10) {
                        throw changed;
                    }
                }
            }
        } catch (KeeperException.NoNodeException e) {
            // nothing to expire
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long storedHighWater(String namespace, int workerId) {
        SlotRecord r = slotRecord(namespace, workerId);
        return r == null ? -1 : r.highWater();
    }

    @Override
    public String storedOwner(String namespace, int workerId) {
        SlotRecord r = slotRecord(namespace, workerId);
        return r == null || r.free() ? null : r.owner();
    }

    /**
     * Writes the centre's clock znode, as a borrow does, and returns the modification time the leader stamped on it.
     * The namespace ages the default way ({@link SequenceManagerStore#createAgedNamespace}): a znode's creation time
     * cannot be dated back.
     */
    @Override
    public long centreNowMillis() {
        try {
            return inspector.setData().forPath(paths.clockPath(), new byte[0]).getMtime();
        } catch (KeeperException.NoNodeException e) {
            try {
                inspector.create().creatingParentsIfNeeded().forPath(paths.clockPath(), new byte[0]);
            } catch (KeeperException.NodeExistsException raced) {
                // another writer created it
            } catch (Exception failed) {
                throw new IllegalStateException(failed);
            }
            return centreNowMillis();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Deletes the slot's persistent znode only; its ephemeral node, if any, stays. */
    @Override
    public void deleteSlotRecord(String namespace, int workerId) {
        try {
            inspector.delete().forPath(paths.slotPath(namespace, workerId));
        } catch (KeeperException.NoNodeException e) {
            // gone already
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public AutoCloseable stall(String namespace, int workerId) {
        proxies.forEach(PausableProxy::pause);
        return () -> proxies.forEach(PausableProxy::resume);
    }

    /**
     * Ends the ZooKeeper session of {@code client} on the server, as its expiry would: a second handle joins the
     * session and closes it, so the server deletes the session's ephemeral nodes. The client learns of it only
     * when it next talks to the server.
     */
    void expireSession(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not join session 0x" + Long.toHexString(zk.getSessionId()));
            }
        } finally {
            twin.close();
        }
    }

    @Override
    public void deleteNamespace(String namespace) {
        deleteTree(paths.namespacePath(namespace));
    }

    private void deleteTree(String path) {
        try {
            inspector.delete().deletingChildrenIfNeeded().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            // gone already
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        proxies.forEach(PausableProxy::resume);
        clients.forEach(CuratorFramework::close);
        deleteTree(basePath);
        deleteTree(barrierPath);
        inspector.close();
        proxies.forEach(PausableProxy::close);
    }

    /**
     * The data and version of {@code path} as of a moment after this call began, or {@code null} when it does not
     * exist. On an ensemble the inspector's server may not yet have applied what a manager's client committed through
     * another server a moment ago, and a sync does not close that gap when the inspector is on the leader (measured
     * on this ensemble under load: plain reads right after another server's write were stale 1 544 times in 18 000,
     * reads behind a sync 13 times, all on one server). So the inspector first writes its barrier znode: the leader
     * gives that write a later zxid than every write already answered, the inspector's server answers it only after
     * applying all before it, and the read, sent behind it on the same connection, is answered after it. If the
     * connection drops, Curator may reconnect to another, lagging server: a write that did not answer OK, or a read
     * that lost its connection, sends both again.
     */
    private @Nullable Current readCurrent(String path) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            ZooKeeper zk = inspector.getZookeeperClient().getZooKeeper();
            CompletableFuture<Integer> barrier = new CompletableFuture<>();
            CompletableFuture<Optional<Current>> read = new CompletableFuture<>();
            zk.setData(barrierPath, new byte[0], -1, (rc, p, ctx, stat) -> barrier.complete(rc), null);
            zk.getData(path, false, (rc, p, ctx, data, stat) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    read.complete(Optional.of(new Current(data == null ? new byte[0] : data, stat.getVersion())));
                } else if (rc == KeeperException.Code.NONODE.intValue()) {
                    read.complete(Optional.empty());
                } else {
                    read.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
                }
            }, null);
            long left = Math.max(1, deadline - System.nanoTime());
            KeeperException.Code barrierCode = KeeperException.Code.get(barrier.get(left, TimeUnit.NANOSECONDS));
            Optional<Current> data;
            try {
                data = read.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof KeeperException k) || !transientCode(k.code())) {
                    throw e;
                }
                last = k;
                Thread.sleep(50);
                continue;
            }
            if (barrierCode == KeeperException.Code.OK) {
                return data.orElse(null);
            }
            last = KeeperException.create(barrierCode, barrierPath);
            if (!transientCode(barrierCode)) {
                throw last;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("ZooKeeper did not write the barrier and read " + path + " within 20 s", last);
    }

    /** A znode's data and the version it had when read. */
    private record Current(byte[] data, int version) {
    }

    /** The connection or session was lost: Curator connects again (with a new handle after an expiry). */
    private static boolean transientCode(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.SESSIONMOVED
                || code == KeeperException.Code.SESSIONEXPIRED;
    }
}
