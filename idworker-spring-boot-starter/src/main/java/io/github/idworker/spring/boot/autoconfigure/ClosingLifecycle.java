package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Closes an idworker component (a worker, which returns its lease; the ID pools, which stop refilling) when the
 * context stops, after the web server has stopped taking requests and before the store's connection factory
 * stops. spring-data-redis connection factories refuse connections once stopped, which happens before beans are
 * destroyed, so a destroy method alone would return no lease and fail every refill check in between.
 *
 * <p>The component is started by its bean method (a worker must hold a lease, and pools must have their entities,
 * before anyone uses them) and closed again by its destroy method; closing is idempotent. A closed component
 * cannot be restarted, so this lifecycle does not start it again after a stop.
 */
final class ClosingLifecycle implements SmartLifecycle {

    /** After the web server (DEFAULT_PHASE - 2048), before connection factories (phase 0). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final @Nullable AutoCloseable component;
    private volatile boolean running;

    /** @param component what to close at stop; {@code null} when there is nothing of idworker's to close */
    ClosingLifecycle(@Nullable AutoCloseable component) {
        this.component = component;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        if (this.component != null) {
            try {
                this.component.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing " + this.component.getClass().getSimpleName() + " failed", e);
            }
        }
    }

    /**
     * Not stopped by a pause (Spring's {@code ConfigurableApplicationContext.pause()}, which the test context
     * cache uses for contexts not in use): what this lifecycle closes cannot be started again, so a paused and
     * restarted context would answer every call with "closed". The component keeps running meanwhile: renewals
     * and refill checks that fail while the connection factory is paused are retried, and a lease lost meanwhile
     * is replaced by the worker itself.
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
