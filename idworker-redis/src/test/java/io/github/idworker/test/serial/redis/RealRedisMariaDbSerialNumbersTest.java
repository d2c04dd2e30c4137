package io.github.idworker.test.serial.redis;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import redis.clients.jedis.RedisClient;

/** Strict serials over the machine's Redis 7 and MariaDB. */
@Tag("real-services")
class RealRedisMariaDbSerialNumbersTest extends AbstractRedisSerialNumbersTest {

    @Override
    protected SerialRedisHarness createHarness() {
        return new SerialRedisHarness(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "",
                () -> RedisClient.create(RealServices.REDIS_HOST, RealServices.REDIS_PORT));
    }
}
