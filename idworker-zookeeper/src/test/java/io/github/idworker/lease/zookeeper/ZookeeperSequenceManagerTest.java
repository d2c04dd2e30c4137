package io.github.idworker.lease.zookeeper;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

/** The {@code ISequenceManager} contract on a ZooKeeper server in this JVM. */
class ZookeeperSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() throws Exception {
        return new ZookeeperSequenceManagerStore(EmbeddedZookeeper.connectString());
    }
}
