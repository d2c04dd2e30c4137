package io.github.idworker.spring.entity;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** {@link AbstractEntityIdsTest} on the machine's MariaDB ({@link RealServices}). */
@Tag("real-services")
class RealServicesEntityIdsMariaDbTest extends AbstractEntityIdsTest {

    @Override
    String url() {
        return RealServices.MARIADB_URL;
    }

    @Override
    String user() {
        return RealServices.MARIADB_USER;
    }
}
