package io.github.idworker.test.redis;

import io.github.idworker.test.lease.AbstractSequenceManagerContractTest;
import io.github.idworker.test.RealServices;
import io.github.idworker.test.lease.SequenceManagerStore;
import org.junit.jupiter.api.Tag;

/**
 * The {@code ISequenceManager} contract against a real Redis 7, by default on {@code 127.0.0.1:6379}
 * ({@link RealServices#REDIS_HOST}, {@link RealServices#REDIS_PORT}). Runs with {@code mvn -Preal-services}.
 */
@Tag("real-services")
class RealRedisSequenceManagerTest extends AbstractSequenceManagerContractTest {

    @Override
    protected SequenceManagerStore createStore() {
        return RedisSequenceManagerStore.realRedis();
    }
}
