package io.github.idworker.server;

import io.github.idworker.service.RequestAuthenticator;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.jdbc.JdbcAppStore;
import io.github.idworker.signing.SignatureVerifier;
import io.github.idworker.spring.boot.autoconfigure.SchemaInitialization;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code idworker.service.*}: the signed pool endpoints of this ID service and the applications allowed to call
 * them. Applications configured here are written to the application table at every startup (configuration wins
 * for them, so a rotation is a deployment); an application without a {@code secret} keeps the stored one, or gets
 * a random one printed once when it is new. Operators add other applications to the table with SQL.
 */
@ConfigurationProperties(prefix = "idworker.service")
public class IdServiceProperties {

    /** The application table. */
    private String table = JdbcAppStore.DEFAULT_TABLE;

    /** When to create the application table: embedded (an in-memory database, as Spring Boot judges it), always, never. */
    private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

    /** How far a call's X-Timestamp may be from this server's clock, either way. */
    private Duration window = SignatureVerifier.DEFAULT_WINDOW;

    /** How far the clocks of two instances may differ; nonces are kept this much longer. */
    private Duration clockTolerance = RequestAuthenticator.DEFAULT_CLOCK_TOLERANCE;

    /**
     * How long after the nonce store (Redis) began with data of its own — a restart, a fail-over to a replica —
     * calls stamped before are refused as possible replays of nonces it lost. Unset: window + clock-tolerance, the
     * least that lets no replay through; less lets a call captured up to the difference before the loss be
     * replayed once, more refuses good calls longer after a loss.
     */
    private @Nullable Duration storeResetGuard;

    /** How often each instance re-reads the application table (operators' changes count within this time). */
    private Duration refreshInterval = Duration.ofSeconds(5);

    /** Applications by app key. */
    private Map<String, App> apps = new LinkedHashMap<>();

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public SchemaInitialization getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(SchemaInitialization initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public Duration getWindow() {
        return window;
    }

    public void setWindow(Duration window) {
        this.window = window;
    }

    public Duration getClockTolerance() {
        return clockTolerance;
    }

    public void setClockTolerance(Duration clockTolerance) {
        this.clockTolerance = clockTolerance;
    }

    public @Nullable Duration getStoreResetGuard() {
        return storeResetGuard;
    }

    public void setStoreResetGuard(@Nullable Duration storeResetGuard) {
        this.storeResetGuard = storeResetGuard;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }

    public Map<String, App> getApps() {
        return apps;
    }

    public void setApps(Map<String, App> apps) {
        this.apps = apps;
    }

    /** {@code idworker.service.apps.<key>.*}: one application. */
    public static class App {

        private @Nullable String name;

        /** The current secret; unset keeps the stored one, or draws a random one printed once. */
        private @Nullable String secret;

        /** The secret before a rotation, valid too while set. */
        private @Nullable String previousSecret;

        /** Pool entities the application may take from; "*" for every entity. */
        private List<String> entities = new ArrayList<>();

        /** IDs per second across every instance. */
        private int maxPerSecond = ServiceApp.DEFAULT_MAX_PER_SECOND;

        /**
         * False refuses the application's calls. Unset keeps what the table holds (true for a new application), so
         * a restart never re-enables an application an operator disabled in the table.
         */
        private @Nullable Boolean enabled;

        public @Nullable String getName() {
            return name;
        }

        public void setName(@Nullable String name) {
            this.name = name;
        }

        public @Nullable String getSecret() {
            return secret;
        }

        public void setSecret(@Nullable String secret) {
            this.secret = secret;
        }

        public @Nullable String getPreviousSecret() {
            return previousSecret;
        }

        public void setPreviousSecret(@Nullable String previousSecret) {
            this.previousSecret = previousSecret;
        }

        public List<String> getEntities() {
            return entities;
        }

        public void setEntities(List<String> entities) {
            this.entities = entities;
        }

        public int getMaxPerSecond() {
            return maxPerSecond;
        }

        public void setMaxPerSecond(int maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
        }

        public @Nullable Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        @Override
        public String toString() {
            // Spring may print bound properties in failure analyses: never the secrets
            return "App[name=" + name + ", entities=" + entities + ", maxPerSecond=" + maxPerSecond + ", enabled="
                    + enabled + "]";
        }
    }
}
