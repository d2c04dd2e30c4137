package io.github.idworker.test.redis;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.lease.SequenceManagerStore;

/** The {@code ISequenceManager} contract, run against the Redis centre on an embedded Redis. */
class EmbeddedRedisSequenceManagerTest extends AbstractSequenceManagerContractTest {

    @Override
    protected SequenceManagerStore createStore() {
        return RedisSequenceManagerStore.embedded();
    }
}
