package io.github.idworker.review;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Builds real ZooKeeper clients (talking to a real server) whose calling thread can be held up just before it
 * sends a multi-operation transaction: a slow thread, a GC pause of the caller only, a descheduled container.
 * The client's own I/O thread keeps running, so its session stays alive and pings go on. Nothing is faked: when
 * released, the very transaction the manager built goes to the server unchanged.
 */
final class StallingZookeeperFactory implements ZookeeperFactory {

    private volatile Predicate<List<Op>> trap;
    private volatile CountDownLatch trapped = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    /** The next transaction matching {@code which} waits in its caller's thread until {@link #release()}. */
    synchronized void arm(Predicate<List<Op>> which) {
        trapped = new CountDownLatch(1);
        release = new CountDownLatch(1);
        trap = which;
    }

    /** Waits until an armed trap has caught a transaction. */
    boolean awaitTrapped(long seconds) throws InterruptedException {
        return trapped.await(seconds, TimeUnit.SECONDS);
    }

    void release() {
        release.countDown();
    }

    static boolean has(List<Op> ops, int opCode) {
        return ops.stream().anyMatch(o -> o.getType() == opCode
                || (opCode == org.apache.zookeeper.ZooDefs.OpCode.create && o instanceof Op.Create));
    }

    private void maybeStall(Iterable<Op> ops) {
        Predicate<List<Op>> t = trap;
        if (t == null) {
            return;
        }
        List<Op> list = new ArrayList<>();
        ops.forEach(list::add);
        boolean caught;
        synchronized (this) {
            caught = trap != null && trap.test(list);
            if (caught) {
                trap = null;
            }
        }
        if (caught) {
            CountDownLatch r = release;
            trapped.countDown();
            // a descheduled thread does not notice interrupts either: hold on until released
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (r.getCount() > 0 && System.nanoTime() < deadline) {
                try {
                    r.await(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
            throws Exception {
        return new Stalling(connectString, sessionTimeout, watcher, canBeReadOnly, new ZKClientConfig());
    }

    @Override
    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                                  ZKClientConfig config) throws Exception {
        return new Stalling(connectString, sessionTimeout, watcher, canBeReadOnly, config);
    }

    /** A started Curator client built on this factory. */
    CuratorFramework client(String connectString, int sessionMs) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(3_000)
                .retryPolicy(new RetryNTimes(3, 100))
                .zookeeperFactory(this)
                .build();
        c.start();
        return c;
    }

    private final class Stalling extends ZooKeeper {
        Stalling(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly, ZKClientConfig config)
                throws IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
        }

        @Override
        public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback cb, Object ctx) {
            maybeStall(ops);
            super.multi(ops, cb, ctx);
        }
    }
}
