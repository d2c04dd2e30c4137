package io.github.idworker.snowflake;

import io.github.idworker.lease.ISequenceManager;

/**
 * A snowflake worker whose worker id is leased from a relational database centre (by default
 * {@code io.github.idworker.lease.jdbc.JdbcSequenceManager} in idworker-jdbc); it keeps every guarantee of {@link AbstractIdWorker}.
 */
public class DBIdWorker extends AbstractIdWorker {

    public DBIdWorker(ISequenceManager sequenceManager, WorkerOptions options) {
        super(sequenceManager, options);
    }
}
