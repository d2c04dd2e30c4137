package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** Named generators over the machine's Redis 7 ({@link RealServices}); run with {@code mvn -Preal-services verify}. */
@Tag("real-services")
class RealServicesNamedGeneratorsRedisTest extends AbstractNamedGeneratorsRedisTest {

    @Override
    protected String redisHost() {
        return RealServices.REDIS_HOST;
    }

    @Override
    protected int redisPort() {
        return RealServices.REDIS_PORT;
    }
}
