package io.github.idworker.spring.boot.autoconfigure;

import java.util.UUID;

/** Random names, so no test trips over another's records. */
final class TestNames {

    private TestNames() {
    }

    static String namespace() {
        return "t-" + UUID.randomUUID().toString().substring(0, 12);
    }

    /** An in-memory H2 database that outlives its connections, so a test can look into it after the context closed. */
    static String h2Url() {
        return "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }
}
