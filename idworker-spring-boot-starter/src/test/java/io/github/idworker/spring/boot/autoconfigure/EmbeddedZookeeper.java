package io.github.idworker.spring.boot.autoconfigure;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * One ZooKeeper server per test JVM (Curator's {@link TestingServer}: a real server, not a fake) on a free
 * loopback port, started on first use and stopped with the JVM. Tests share it, each under its own base path.
 */
final class EmbeddedZookeeper {

    private static TestingServer server;

    private EmbeddedZookeeper() {
    }

    static synchronized String connectString() {
        if (server == null) {
            // test data only: skip the transaction log's fsync on a disk other builds share
            System.setProperty("zookeeper.forceSync", "no");
            try {
                server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, 1_000), true);
            } catch (Exception e) {
                throw new IllegalStateException("could not start the embedded ZooKeeper server", e);
            }
            TestingServer started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // the JVM is going away
                }
            }, "embedded-zookeeper-stop"));
        }
        return server.getConnectString();
    }

    /** A base path no other test uses. */
    static String basePath() {
        return "/idworker-test-" + TestNames.namespace();
    }
}
