package io.github.idworker.server;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * Profile {@code external} over the machine's real MariaDB and PostgreSQL and its Redis 7: segment and sequence
 * numbers continue across a restart of the application.
 */
// exclusive: the demo's serial rules (order, invoice) have fixed names, which these starts register in the shared
// database and Redis and their cleanup removes; ExternalProfileTest's private H2 and Redis need no such care
@Tag("real-services")
@Tag("exclusive")
class ExternalProfileRealServicesTest {

    @Nested
    class OnMariaDb extends AbstractExternalProfileTest {
        OnMariaDb() {
            super(RealServices.MARIADB_URL, RealServices.MARIADB_USER, RealServices.REDIS_HOST, RealServices.REDIS_PORT);
        }
    }

    @Nested
    class OnPostgreSql extends AbstractExternalProfileTest {
        OnPostgreSql() {
            super(RealServices.POSTGRES_URL, RealServices.POSTGRES_USER, RealServices.REDIS_HOST, RealServices.REDIS_PORT);
        }
    }
}
