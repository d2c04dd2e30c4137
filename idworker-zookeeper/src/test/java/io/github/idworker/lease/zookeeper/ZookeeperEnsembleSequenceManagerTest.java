package io.github.idworker.lease.zookeeper;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

import org.junit.jupiter.api.Tag;

/** The {@code ISequenceManager} contract on a three-node ZooKeeper ensemble (Curator's TestingCluster). */
@Tag("real-services")
class ZookeeperEnsembleSequenceManagerTest extends AbstractSequenceManagerContractTest {
    @Override
    protected SequenceManagerStore createStore() throws Exception {
        return new ZookeeperSequenceManagerStore(EmbeddedZookeeper.ensembleConnectString());
    }
}
