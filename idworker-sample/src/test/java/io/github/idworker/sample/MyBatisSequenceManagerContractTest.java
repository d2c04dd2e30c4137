package io.github.idworker.sample;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

/**
 * The sample's own {@link MyBatisSequenceManager} keeps the same contract as idworker's centres: this one line of
 * setup runs the whole suite from idworker-test-support against it, over a real H2 database.
 */
class MyBatisSequenceManagerContractTest extends AbstractSequenceManagerContractTest {

    @Override
    protected SequenceManagerStore createStore() throws Exception {
        return MyBatisStore.h2();
    }

    /** The sample's centre predates preferred worker ids (idworker.worker-id.*); see docs/worker-ids.md. */
    @Override
    protected boolean leasesPreferredSlots() {
        return false;
    }
}
