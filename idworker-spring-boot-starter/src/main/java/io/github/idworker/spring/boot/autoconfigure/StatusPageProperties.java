package io.github.idworker.spring.boot.autoconfigure;

/**
 * The operators' status page ({@link IdWorkerStatusPageAutoConfiguration}). Bound to {@code idworker.status-page.*}.
 */
public class StatusPageProperties {

    /**
     * Whether to serve the operators' status page at /status (a servlet web application with Spring MVC only). It
     * reads /actuator/idworker and /actuator/health from the browser, so expose those too; keep the page where the
     * Actuator endpoints are kept. Off by default: an application's own /status is never shadowed.
     */
    private boolean enabled;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
