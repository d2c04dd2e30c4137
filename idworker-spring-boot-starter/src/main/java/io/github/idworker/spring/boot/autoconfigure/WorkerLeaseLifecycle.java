package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.AbstractIdWorker;
import org.springframework.context.SmartLifecycle;

/**
 * Returns a worker's lease when the context stops, after the web server has stopped taking requests and before
 * the centre's connection factory stops: spring-data-redis connection factories refuse connections once
 * stopped, which happens before beans are destroyed, so a destroy method alone would return nothing.
 *
 * <p>The worker itself is started by its bean's init method (it must hold a lease before anyone can inject
 * and use it) and closed again by its destroy method; closing is idempotent. A closed worker cannot be
 * restarted, so this lifecycle does not start again after a stop.
 */
class WorkerLeaseLifecycle implements SmartLifecycle {

    /** After the web server (DEFAULT_PHASE - 2048), before connection factories (phase 0). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final AbstractIdWorker worker;
    private volatile boolean running;

    WorkerLeaseLifecycle(AbstractIdWorker worker) {
        this.worker = worker;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        this.worker.close();
    }

    /**
     * Not stopped by a pause (Spring's {@code ConfigurableApplicationContext.pause()}, which the test context
     * cache uses for contexts not in use): what this lifecycle closes cannot be started again, so a paused and
     * restarted context would answer every call with "closed"; the worker keeps its lease (renewals that fail while the connection factory is paused are retried, and a lease lost meanwhile is replaced by the worker itself).
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
