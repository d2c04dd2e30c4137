package io.github.idworker.server;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The signed pool endpoint of two instances over the machine's Redis 7 and, in turn, MariaDB and PostgreSQL:
 * tables and keys named after a random tag, dropped and deleted afterwards.
 */
@Tag("real-services")
class PoolServiceAuthRealServicesTest {

    @Nested
    class OnMariaDb extends AbstractPoolServiceAuthTest {
        @Override
        ServiceEnvironment environment() {
            return ServiceEnvironment.external(RealServices.MARIADB_URL, RealServices.MARIADB_USER,
                    RealServices.REDIS_HOST, RealServices.REDIS_PORT);
        }
    }

    @Nested
    class OnPostgreSql extends AbstractPoolServiceAuthTest {
        @Override
        ServiceEnvironment environment() {
            return ServiceEnvironment.external(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER,
                    RealServices.REDIS_HOST, RealServices.REDIS_PORT);
        }
    }
}
