package io.github.idworker.snowflake;

import io.github.idworker.lease.ISequenceManager;

/**
 * A snowflake worker whose worker id is leased from a Redis centre (by default
 * {@code io.github.idworker.lease.redis.RedisSequenceManager} in idworker-redis); it keeps every guarantee of {@link AbstractIdWorker}.
 */
public class RedisIdWorker extends AbstractIdWorker {

    public RedisIdWorker(ISequenceManager sequenceManager, WorkerOptions options) {
        super(sequenceManager, options);
    }
}
