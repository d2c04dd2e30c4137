package io.github.idworker.server;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/**
 * The soak over the machine's databases: environment 0 on MariaDB, environment 1 on PostgreSQL, each with a
 * {@code redis-server} of its own on a free loopback port (the machine's Redis is never restarted); tables and
 * keys named after random tags, removed afterwards.
 */
@Tag("real-services")
class ServiceSoakRealServicesIT extends AbstractServiceSoak {

    @Override
    ServiceEnvironment environment(int index) throws Exception {
        return index == 0
                ? ServiceEnvironment.externalWithOwnRedis(RealServices.MARIADB_URL, RealServices.MARIADB_USER)
                : ServiceEnvironment.externalWithOwnRedis(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER);
    }

    @Override
    String stores() {
        return "MariaDB + redis-server, PostgreSQL + redis-server";
    }
}
