package io.github.idworker.spring.boot.autoconfigure;

/** Named generators over the test JVM's embedded Redis. */
class EmbeddedNamedGeneratorsRedisTest extends AbstractNamedGeneratorsRedisTest {

    @Override
    protected String redisHost() {
        return "127.0.0.1";
    }

    @Override
    protected int redisPort() {
        return EmbeddedRedis.port();
    }
}
