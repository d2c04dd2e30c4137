package io.github.idworker.test.serial.redis;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.RedisClient;

/** Strict serials over the machine's Redis 7 and PostgreSQL, through a pool whose default isolation is REPEATABLE READ. */
@Tag("real-services")
class RealRedisPostgreSqlSerialNumbersTest extends AbstractRedisSerialNumbersTest {

    @Override
    protected SerialRedisHarness createHarness() {
        return new SerialRedisHarness(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER,
                "", () -> RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT),
                pool -> pool.setTransactionIsolation("TRANSACTION_REPEATABLE_READ"));
    }
}
