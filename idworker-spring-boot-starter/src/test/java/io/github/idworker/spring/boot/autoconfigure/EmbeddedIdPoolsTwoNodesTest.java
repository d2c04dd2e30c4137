package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;

/** Two nodes over one in-memory H2 database (kept open between connections) and one embedded Redis. */
class EmbeddedIdPoolsTwoNodesTest extends AbstractIdPoolsTwoNodesTest {

    private final String url = TestNames.h2Url();

    @Override
    protected String[] databaseProperties() {
        return new String[] {"spring.datasource.url=" + url};
    }

    @Override
    protected String[] databaseLogin() {
        return new String[] {url, "sa", ""};
    }

    @Override
    protected String redisHost() {
        return "127.0.0.1";
    }

    @Override
    protected int redisPort() {
        return EmbeddedRedis.port();
    }

    @Override
    protected Duration run() {
        return Duration.ofSeconds(6);
    }

    @Override
    protected String describe() {
        return "H2 and embedded Redis";
    }
}
