package io.github.idworker.server;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/**
 * The failover test over real servers: environment 0 on MariaDB and the machine's Redis 7 (6379), environment 1
 * on PostgreSQL and a {@code redis-server} of its own; tables and keys named after random tags, removed afterwards.
 */
@Tag("real-services")
class ClientFailoverRealServicesTest extends AbstractClientFailoverTest {

    @Override
    ServiceEnvironment environment(int index) throws Exception {
        return index == 0
                ? ServiceEnvironment.external(RealServices.MARIADB_URL, RealServices.MARIADB_USER,
                        RealServices.REDIS_HOST, RealServices.REDIS_PORT)
                : ServiceEnvironment.externalWithOwnRedis(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER);
    }
}
