package io.github.idworker.review;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;

/** A real ZooKeeper server for the review's attack tests, one per JVM, plus plain clients to play operator. */
final class ReviewZookeeper {

    private static TestingServer server;

    private ReviewZookeeper() {
    }

    static synchronized TestingServer server() {
        if (server == null) {
            System.setProperty("zookeeper.forceSync", "no");
            try {
                server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, 1_000), true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return server;
    }

    static CuratorFramework client(String connectString) {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connectString).sessionTimeoutMs(20_000)
                .connectionTimeoutMs(3_000).retryPolicy(new RetryNTimes(3, 100)).build();
        c.start();
        return c;
    }

    static int version(CuratorFramework c, String path) throws Exception {
        Stat s = c.checkExists().forPath(path);
        return s == null ? -1 : s.getVersion();
    }

    static String text(CuratorFramework c, String path) {
        try {
            return new String(c.getData().forPath(path)).replace('\n', ' ');
        } catch (Exception e) {
            return "<" + e.getClass().getSimpleName() + ">";
        }
    }
}
