package io.github.idworker.lease.zookeeper;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

import java.util.ArrayList;
import java.util.List;

/**
 * One ZooKeeper server per test JVM (Curator's {@link TestingServer}, a real server, not a fake), started on
 * first use on a free loopback port and stopped with the JVM. Tests share it; each uses its own base path.
 */
final class EmbeddedZookeeper {

    /** Connections a server accepts from one address (ZooKeeper's default is 60). */
    static final int MAX_CLIENT_CONNECTIONS = 1_000;

    private static TestingServer server;
    private static TestingCluster ensemble;

    private EmbeddedZookeeper() {
    }

    /** Skips the transaction log's fsync: these servers hold test data only, and the disk is shared. */
    static void withoutFsync() {
        System.setProperty("zookeeper.forceSync", "no");
    }

    static synchronized TestingServer server() {
        if (server == null) {
            withoutFsync();
            try {
                // every client of every test comes from 127.0.0.1: lift ZooKeeper's limit of 60 per address
                server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, MAX_CLIENT_CONNECTIONS), true);
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
        return server;
    }

    static String connectString() {
        return server().getConnectString();
    }

    /** A three-node ensemble (three real quorum peers in this JVM), started on first use, stopped with the JVM. */
    static synchronized String ensembleConnectString() {
        if (ensemble == null) {
            withoutFsync();
            List<InstanceSpec> specs = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                specs.add(new InstanceSpec(null, -1, -1, -1, true, id, -1, MAX_CLIENT_CONNECTIONS));
            }
            ensemble = new TestingCluster(specs);
            try {
                ensemble.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start the embedded ZooKeeper ensemble", e);
            }
            TestingCluster started = ensemble;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // the JVM is going away
                }
            }, "embedded-zookeeper-ensemble-stop"));
        }
        return ensemble.getConnectString();
    }
}
