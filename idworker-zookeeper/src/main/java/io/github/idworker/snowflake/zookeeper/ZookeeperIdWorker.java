package io.github.idworker.snowflake.zookeeper;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.WorkerOptions;

/**
 * A snowflake worker whose worker id is leased from a ZooKeeper centre (by default
 * {@link io.github.idworker.lease.zookeeper.ZookeeperSequenceManager}); it keeps every guarantee of
 * {@link AbstractIdWorker}. An expired ZooKeeper session does not stop it by itself: it issues only up to the
 * high-water it stored, and its next renewal finds the lease lost and borrows another worker id.
 */
public class ZookeeperIdWorker extends AbstractIdWorker {

    public ZookeeperIdWorker(ISequenceManager sequenceManager, WorkerOptions options) {
        super(sequenceManager, options);
    }
}
