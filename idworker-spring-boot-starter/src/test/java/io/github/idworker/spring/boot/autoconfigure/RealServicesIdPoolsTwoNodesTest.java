package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/**
 * Two nodes over the machine's MariaDB and Redis 7 ({@link RealServices}; the pool table is created when
 * missing); run with {@code mvn -Preal-services verify}.
 */
@Tag("real-services")
class RealServicesIdPoolsTwoNodesTest extends AbstractIdPoolsTwoNodesTest {

    @Override
    protected String[] databaseProperties() {
        return new String[] {"spring.datasource.url=" + RealServices.MARIADB_URL,
                "spring.datasource.username=" + RealServices.MARIADB_USER, "spring.datasource.password=",
                "idworker.pool.initialize-schema=always"};
    }

    @Override
    protected String[] databaseLogin() {
        return new String[] {RealServices.MARIADB_URL, RealServices.MARIADB_USER, ""};
    }

    @Override
    protected String redisHost() {
        return RealServices.REDIS_HOST;
    }

    @Override
    protected int redisPort() {
        return RealServices.REDIS_PORT;
    }

    @Override
    protected String describe() {
        return "MariaDB and Redis 7";
    }
}
