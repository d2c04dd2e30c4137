package io.github.idworker.service;

import io.github.idworker.StoreLocations;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The applications of an {@link AppStore}, held in memory so that checking a call costs no database round trip.
 * Guarantees: a lookup sees the store as it was at the last refresh, at most {@code refreshInterval} ago (an
 * application disabled, deleted or rotated by an operator counts within that time; one saved through
 * {@link #register} counts at once on this instance); when a refresh fails the last applications read stay in
 * force and the failure is logged without any secret.
 */
public class ServiceApps implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServiceApps.class);

    private final AppStore store;
    private final Duration refreshInterval;
    private volatile Map<String, ServiceApp> apps = Map.of();
    private @Nullable ScheduledExecutorService refresher;

    public ServiceApps(AppStore store, Duration refreshInterval) {
        this.store = Objects.requireNonNull(store, "store");
        if (refreshInterval == null || refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("refreshInterval must be positive, was " + refreshInterval);
        }
        this.refreshInterval = refreshInterval;
    }

    /** Reads every application now and then every {@code refreshInterval} on a daemon thread. */
    public synchronized void start() {
        refresh();
        if (refresher == null) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "idworker-service-apps");
                t.setDaemon(true);
                return t;
            });
            long every = refreshInterval.toMillis();
            refresher.scheduleWithFixedDelay(this::refreshQuietly, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reads every application from the store now. Holds the lock {@link #register} publishes under, so a
     * registration made while the store is read is not replaced by the older read; lookups never wait for it.
     */
    public synchronized void refresh() {
        Map<String, ServiceApp> read = new HashMap<>();
        for (ServiceApp app : store.findAll()) {
            read.put(app.appKey(), app);
        }
        apps = Map.copyOf(read);
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            log.warn("Could not read the ID service's applications from {}; the {} read before stay in force: {}",
                    store.description(), apps.size(), StoreLocations.redact(e.toString()));
        }
    }

    /**
     * Saves {@code app} (insert, or replace the stored one) and makes it count on this instance at once; other
     * instances see it within their refresh interval.
     */
    public void register(ServiceApp app) {
        store.save(app);
        put(app);
    }

    /**
     * Inserts {@code app} unless its key is stored; returns the stored one, which counts on this instance at once.
     */
    public ServiceApp registerIfMissing(ServiceApp app) {
        ServiceApp stored = store.saveIfMissing(app);
        put(stored);
        return stored;
    }

    private synchronized void put(ServiceApp app) {
        Map<String, ServiceApp> next = new HashMap<>(apps);
        next.put(app.appKey(), app);
        apps = Map.copyOf(next);
    }

    /** The application of this key as last read, enabled or not. */
    public Optional<ServiceApp> find(String appKey) {
        return appKey == null ? Optional.empty() : Optional.ofNullable(apps.get(appKey));
    }

    /** The secrets a call of this key may be signed with: none for an unknown or disabled key. */
    public List<String> secrets(String appKey) {
        ServiceApp app = appKey == null ? null : apps.get(appKey);
        return (app == null || !app.enabled()) ? List.of() : app.secrets();
    }

    public int size() {
        return apps.size();
    }

    public String description() {
        return store.description();
    }

    @Override
    public synchronized void close() {
        if (refresher != null) {
            refresher.shutdownNow();
            refresher = null;
        }
    }
}
