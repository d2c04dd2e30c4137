package io.github.idworker.spring.entity;

import java.util.UUID;

/** {@link AbstractEntityIdsTest} on an in-memory H2 database. */
class EntityIdsH2Test extends AbstractEntityIdsTest {

    private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @Override
    String url() {
        return url;
    }

    @Override
    String user() {
        return "sa";
    }
}
