package io.github.idworker.spring.entity;

import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;

/** {@link AbstractEntityIdsTest} on the machine's PostgreSQL ({@link RealServices}). */
@Tag("real-services")
class RealServicesEntityIdsPostgresTest extends AbstractEntityIdsTest {

    @Override
    String url() {
        return RealServices.POSTGRES_URL;
    }

    @Override
    String user() {
        return RealServices.POSTGRES_USER;
    }
}
