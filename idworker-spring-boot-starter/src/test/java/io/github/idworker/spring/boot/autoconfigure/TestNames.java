package io.github.idworker.spring.boot.autoconfigure;

import java.util.UUID;

/** Random names, so no test trips over another's records; and the short lease of the database-centre tests. */
final class TestNames {

    /**
     * A short lease for tests of the database centre. A fresh namespace's first borrow waits ttl + max-skew by
     * design (about 2 s here rather than 16 s with the defaults); the statement timeout is whole seconds, at
     * least 1 s, and below the heartbeat, which is at most ttl / 2.
     */
    static final String[] SHORT_DB_LEASE = {"idworker.lease.ttl=2002ms", "idworker.lease.heartbeat-interval=1001ms",
            "idworker.lease.max-skew=10ms", "idworker.lease.loss-guard=2012ms", "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=3s"};

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
