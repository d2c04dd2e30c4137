package io.github.idworker.test.serial.redis;

import io.github.idworker.test.redis.EmbeddedRedisSupport;

/** Strict serials over embedded Redis and H2 in MySQL mode: the default build's run of the suite. */
class EmbeddedRedisSerialNumbersTest extends AbstractRedisSerialNumbersTest {

    @Override
    protected SerialRedisHarness createHarness() {
        return new SerialRedisHarness("jdbc:h2:mem:serial-redis;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
    }
}
