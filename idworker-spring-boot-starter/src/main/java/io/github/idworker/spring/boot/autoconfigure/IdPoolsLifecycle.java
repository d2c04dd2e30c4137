package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.redis.RedisIdPools;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@code idPools} bean, when it is a {@link RedisIdPools}, when the context stops, after the web server has stopped taking requests and
 * before the Redis connection factory stops: spring-data-redis connection factories refuse connections once
 * stopped, which happens before beans are destroyed, so with the destroy method alone every refill check in
 * between would fail and log a warning. The pools are started by their bean method (entities must be registered
 * before anyone takes); closing is idempotent, and closed pools cannot be restarted, so this lifecycle does not
 * start them again after a stop.
 */
class IdPoolsLifecycle implements SmartLifecycle {

    private final RedisIdPools pools;
    private volatile boolean running;

    /** @param pools the pools to close; {@code null} when the application's {@code idPools} is of another kind */
    IdPoolsLifecycle(RedisIdPools pools) {
        this.pools = pools;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        if (this.pools != null) {
            this.pools.close();
        }
    }

    /**
     * Not stopped by a pause (Spring's {@code ConfigurableApplicationContext.pause()}, which the test context
     * cache uses for contexts not in use): what this lifecycle closes cannot be started again, so a paused and
     * restarted context would answer every call with "closed"; the pools keep running (refill checks that fail while the connection factory is paused are retried at the next check).
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** The worker lease's phase: after the web server (DEFAULT_PHASE - 2048), before connection factories (0). */
    @Override
    public int getPhase() {
        return WorkerLeaseLifecycle.PHASE;
    }
}
