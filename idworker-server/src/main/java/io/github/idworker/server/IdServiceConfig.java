package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.jdbc.JdbcTimeouts;
import io.github.idworker.service.RequestAuthenticator;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import io.github.idworker.service.jdbc.JdbcAppStore;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.spring.boot.autoconfigure.IdWorkerProperties;
import io.github.idworker.spring.boot.autoconfigure.JdbcProperties;
import io.github.idworker.spring.boot.autoconfigure.SpringRedisScriptExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The beans of signed calls, present when pools are served or another family is signed
 * ({@link SigningNeeded}): the application table
 * ({@link JdbcAppStore} over the application's DataSource), the applications in memory ({@link ServiceApps}),
 * the nonce and rate gate in the application's Redis ({@link RedisRequestGate}) and the
 * {@link RequestAuthenticator} that {@link PoolController} asks before any ID is taken.
 *
 * <p>Steps at startup: bind {@code idworker.service.*}; create the table when {@code initialize-schema} says so and
 * check it; build every configured application (all checked before any is written, a bad value failing the
 * startup naming {@code idworker.service.apps.<key>.<field>}); write each to the table — a configured secret
 * replaces the stored one, an unset secret keeps the stored one or, for an application the table does not hold,
 * is drawn at random and written once to a file only this user can read (never to a log); then read the whole table and re-read it every {@code refresh-interval}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(SigningNeeded.class)
@EnableConfigurationProperties(IdServiceProperties.class)
public class IdServiceConfig {

    private static final Logger log = LoggerFactory.getLogger(IdServiceConfig.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Name of the application table's store bean. */
    public static final String APP_STORE_BEAN = "appStore";

    @Bean(name = APP_STORE_BEAN)
    @DependsOnDatabaseInitialization
    JdbcAppStore appStore(DataSource dataSource, IdServiceProperties service, IdWorkerProperties properties) {
        JdbcProperties jdbc = properties.getJdbc();
        JdbcAppStore store = new JdbcAppStore(dataSource, service.getTable(),
                new JdbcTimeouts(jdbc.getStatementTimeout(), jdbc.getNetworkTimeout()));
        if (service.getInitializeSchema().creates(dataSource)) {
            store.createSchemaIfMissing();
        }
        store.verifySchema();
        return store;
    }

    @Bean(destroyMethod = "close")
    ServiceApps serviceApps(JdbcAppStore store, IdServiceProperties service) {
        if (service.getRefreshInterval() == null || service.getRefreshInterval().isNegative() || service.getRefreshInterval().isZero()) {
            throw new IdWorkerConfigurationException("idworker.service.refresh-interval", "must be positive, was "
                    + service.getRefreshInterval());
        }
        List<Configured> configured = new ArrayList<>();
        for (Map.Entry<String, IdServiceProperties.App> e : service.getApps().entrySet()) {
            configured.add(app(e.getKey(), e.getValue()));
        }
        ServiceApps apps = new ServiceApps(store, service.getRefreshInterval());
        for (Configured app : configured) {
            register(apps, store, app);
        }
        apps.start();
        log.info("ID service: {} applications in {}, window ±{}", apps.size(), store.description(),
                service.getWindow());
        return apps;
    }

    /** A configured application, and which of its values were configured rather than defaulted or drawn here. */
    record Configured(ServiceApp app, boolean secretConfigured, boolean enabledConfigured) {
    }

    /**
     * Application {@code key} as configured, every field checked; an unset secret is drawn at random, to be used
     * only when the table does not hold the application yet.
     */
    static Configured app(String key, IdServiceProperties.App settings) {
        ServiceApp.checkKey(key, ServiceApp.property(key, ""));
        IdServiceProperties.App s = settings != null ? settings : new IdServiceProperties.App();
        boolean secretConfigured = s.getSecret() != null && !s.getSecret().isEmpty();
        ServiceApp app = ServiceApp.builder(key).name(s.getName())
                .secret(secretConfigured ? s.getSecret() : newSecret()).previousSecret(s.getPreviousSecret())
                .entities(s.getEntities()).maxPerSecond(s.getMaxPerSecond())
                .enabled(s.getEnabled() == null || s.getEnabled()).build();
        return new Configured(app, secretConfigured, s.getEnabled() != null);
    }

    /**
     * Writes a configured application: configured values win; an unset secret keeps the stored one (or, for a new
     * application, the drawn one is stored and written once to {@link #secretFile}); an unset {@code enabled}
     * keeps the stored flag, so
     * an application an operator disabled stays disabled across restarts.
     */
    private static void register(ServiceApps apps, JdbcAppStore store, Configured configured) {
        ServiceApp app = configured.app();
        Optional<ServiceApp> stored = store.find(app.appKey());
        if (stored.isEmpty() && !configured.secretConfigured()) {
            ServiceApp kept = apps.registerIfMissing(app);
            if (kept.secret().equals(app.secret())) {
                // handed over once, by the instance that stored it, in a file only this user can read: a secret
                // never goes into a log line, where log shippers would keep it for good
                Path file = secretFile(app.appKey());
                try {
                    writeOwnerOnly(file, app.secret());
                    log.warn("ID service application '{}' has no configured secret; a new one was drawn, stored and "
                            + "written to {} (readable by this user only: read it, then delete the file), or set "
                            + "idworker.service.apps.{}.secret to choose one", app.appKey(), file, app.appKey());
                } catch (IOException | UnsupportedOperationException e) {
                    log.warn("ID service application '{}' has no configured secret; a new one was drawn and stored, "
                            + "but could not be written to {} ({}); set idworker.service.apps.{}.secret to use this "
                            + "application", app.appKey(), file, e.getClass().getSimpleName(), app.appKey());
                }
                return;
            }
            stored = Optional.of(kept);
        }
        ServiceApp.Builder merged = app.toBuilder();
        if (stored.isPresent()) {
            if (!configured.secretConfigured()) {
                merged.secret(stored.get().secret()).previousSecret(stored.get().previousSecret());
            }
            if (!configured.enabledConfigured()) {
                merged.enabled(stored.get().enabled());
            }
        }
        apps.register(merged.build());
    }

    /** Where a secret drawn for application {@code appKey} is handed over: the temporary directory. */
    static Path secretFile(String appKey) {
        // the key is 1 to 64 of [A-Za-z0-9_.-] (ServiceApp.checkKey), and the prefix keeps ".." a plain name
        return Path.of(System.getProperty("java.io.tmpdir"), "idworker-service-" + appKey + ".secret");
    }

    /**
     * Writes {@code secret} to a new file that only this user may read and write. Whatever was there is removed
     * first (a link is removed, not followed), and the file is created exclusively, so another user's file or link
     * planted at that name is never written through.
     */
    static void writeOwnerOnly(Path file, String secret) throws IOException {
        Files.deleteIfExists(file);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        Files.writeString(file, secret + System.lineSeparator(), StandardCharsets.US_ASCII,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
    }

    private static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    @Bean
    RedisRequestGate requestGate(RedisConnectionFactory connectionFactory, IdWorkerProperties properties) {
        return new RedisRequestGate(new SpringRedisScriptExecutor(connectionFactory),
                properties.getRedis().getKeyPrefix());
    }

    @Bean
    RequestAuthenticator requestAuthenticator(ServiceApps apps, RedisRequestGate gate, IdServiceProperties service) {
        Duration window = service.getWindow();
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IdWorkerConfigurationException("idworker.service.window", "must be positive, was " + window);
        }
        if (service.getClockTolerance() == null || service.getClockTolerance().isNegative()) {
            throw new IdWorkerConfigurationException("idworker.service.clock-tolerance", "must not be negative, was "
                    + service.getClockTolerance());
        }
        Duration safe = RequestAuthenticator.safeResetGuard(window, service.getClockTolerance());
        Duration guard = service.getStoreResetGuard();
        if (guard != null && guard.isNegative()) {
            throw new IdWorkerConfigurationException("idworker.service.store-reset-guard", "must not be negative, was "
                    + guard);
        }
        if (guard != null && guard.compareTo(safe) < 0) {
            log.warn("idworker.service.store-reset-guard is {}, less than window + clock-tolerance ({}): after Redis "
                    + "loses its data, a signed call captured up to {} before the loss can be replayed once", guard,
                    safe, safe.minus(guard));
        }
        return new RequestAuthenticator(apps, gate, window, service.getClockTolerance(), guard,
                System::currentTimeMillis);
    }
}
