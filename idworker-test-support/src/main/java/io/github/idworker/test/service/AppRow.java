package io.github.idworker.test.service;

import io.github.idworker.service.ServiceApp;
import org.jspecify.annotations.Nullable;

/**
 * One application's row as an operator writes it with plain SQL (or any store's own tools), without the checks
 * of {@link ServiceApp}: each field holds exactly what is stored, valid or not. {@code entities} is the stored
 * text, comma-separated or {@code *}.
 */
public record AppRow(String appKey, String name, String secret, @Nullable String previousSecret, String entities,
                     int maxPerSecond, boolean enabled) {

    /** The row that stores {@code app}. */
    public static AppRow of(ServiceApp app) {
        return new AppRow(app.appKey(), app.name(), app.secret(), app.previousSecret(),
                String.join(",", app.entities()), app.maxPerSecond(), app.enabled());
    }

    public AppRow withSecret(String secret) {
        return new AppRow(appKey, name, secret, previousSecret, entities, maxPerSecond, enabled);
    }

    public AppRow withPreviousSecret(@Nullable String previousSecret) {
        return new AppRow(appKey, name, secret, previousSecret, entities, maxPerSecond, enabled);
    }

    public AppRow withEntities(String entities) {
        return new AppRow(appKey, name, secret, previousSecret, entities, maxPerSecond, enabled);
    }

    public AppRow withMaxPerSecond(int maxPerSecond) {
        return new AppRow(appKey, name, secret, previousSecret, entities, maxPerSecond, enabled);
    }

    /** Leaves the secrets out, like {@link ServiceApp#toString()}, so a failing assertion never prints them. */
    @Override
    public String toString() {
        return "AppRow[" + appKey + ", name=" + name + ", entities=" + entities + ", maxPerSecond=" + maxPerSecond
                + ", enabled=" + enabled + "]";
    }
}
