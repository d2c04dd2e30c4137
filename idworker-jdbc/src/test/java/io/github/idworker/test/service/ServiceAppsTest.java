package io.github.idworker.test.service;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.service.AppStore;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import io.github.idworker.service.jdbc.JdbcAppStore;
import io.github.idworker.test.StderrLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link ServiceApps} over a {@link JdbcAppStore} in H2: applications count at once when registered here and
 * within the refresh interval when changed in the table; a refresh that fails, called or scheduled, keeps the
 * applications read before and says so without a secret; a refresh racing a registration does not drop it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceAppsTest {

    private final List<String> secrets = new ArrayList<>();
    private JdbcAppStoreStore db;
    private ServiceApps apps;

    @BeforeEach
    void open() {
        db = new JdbcAppStoreStore("jdbc:h2:mem:service-apps;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @AfterEach
    void close() {
        if (apps != null) {
            apps.close();
        }
        db.close();
    }

    private String newSecret() {
        String secret = "S3cret_" + UUID.randomUUID().toString().replace("-", "");
        secrets.add(secret);
        return secret;
    }

    private ServiceApp.Builder newApp() {
        return ServiceApp.builder("a-" + UUID.randomUUID().toString().substring(0, 8)).secret(newSecret())
                .entities("*");
    }

    private void assertNoSecret(String text) {
        for (String secret : secrets) {
            assertThat(text).doesNotContain(secret);
        }
    }

    @Test
    void aRegisteredApplicationCountsAtOnceAndRegisterIfMissingKeepsTheStoredOne() {
        apps = new ServiceApps(db.newStore(), Duration.ofMinutes(1));
        apps.start();
        assertThat(apps.size()).isZero();
        ServiceApp a = newApp().build();
        apps.register(a);
        assertThat(apps.find(a.appKey())).get().matches(a::sameAs);
        assertThat(apps.secrets(a.appKey())).containsExactly(a.secret());

        ServiceApp proposal = a.toBuilder().secret(newSecret()).maxPerSecond(5).build();
        assertThat(apps.registerIfMissing(proposal).sameAs(a)).as("the stored one").isTrue();
        assertThat(apps.find(a.appKey())).get().matches(a::sameAs);
        assertThat(apps.size()).isEqualTo(1);
        assertThat(apps.description()).contains(db.table());
    }

    @Test
    void secretsAreNoneForAnUnknownOrDisabledKeyAndTwoDuringARotation() {
        apps = new ServiceApps(db.newStore(), Duration.ofMinutes(1));
        ServiceApp disabled = newApp().enabled(false).build();
        ServiceApp rotating = newApp().previousSecret(newSecret()).build();
        apps.register(disabled);
        apps.register(rotating);
        assertThat(apps.secrets("nobody")).isEmpty();
        assertThat(apps.secrets(null)).isEmpty();
        assertThat(apps.find(null)).isEmpty();
        assertThat(apps.secrets(disabled.appKey())).isEmpty();
        assertThat(apps.find(disabled.appKey())).as("a disabled application is still found").isPresent();
        assertThat(apps.secrets(rotating.appKey())).containsExactly(rotating.secret(), rotating.previousSecret());
    }

    @Test
    void aRefreshThatFailsKeepsTheApplicationsReadBefore() {
        apps = new ServiceApps(db.newStore(), Duration.ofMinutes(1));
        ServiceApp a = newApp().build();
        ServiceApp rotating = newApp().previousSecret(newSecret()).build();
        db.newStore().save(a);
        db.newStore().save(rotating);
        apps.refresh();
        assertThat(apps.size()).isEqualTo(2);

        db.dropTable();
        assertThatThrownBy(apps::refresh).isInstanceOf(CenterUnavailableException.class)
                .hasMessageContaining("table " + db.table())
                .satisfies(e -> assertNoSecret(e.getMessage()));
        assertThat(apps.size()).isEqualTo(2);
        assertThat(apps.find(a.appKey())).get().matches(a::sameAs);
        assertThat(apps.secrets(rotating.appKey())).containsExactly(rotating.secret(), rotating.previousSecret());
    }

    /**
     * The scheduled refresh logs a failure (without a secret) and keeps the applications; once the table is back
     * it picks up an operator's change within its interval.
     */
    @Test
    void theScheduledRefreshLogsAFailureWithoutSecretsKeepsTheApplicationsAndRecovers() {
        apps = new ServiceApps(db.newStore(), Duration.ofMillis(100));
        ServiceApp a = newApp().previousSecret(newSecret()).build();
        apps.register(a);
        apps.start();

        String log = StderrLog.during(() -> {
            db.dropTable();
            sleep(600);
        });
        assertThat(log).contains("Could not read the ID service's applications from table " + db.table())
                .contains("the 1 read before stay in force");
        assertNoSecret(log);
        assertThat(apps.find(a.appKey())).get().matches(a::sameAs);
        assertThat(apps.secrets(a.appKey())).hasSize(2);

        db.createSchemaIfMissing();
        ServiceApp cleared = a.toBuilder().previousSecret(null).maxPerSecond(3).build();
        db.newStore().save(cleared);
        await().atMost(Duration.ofSeconds(5)).until(() -> apps.find(a.appKey()).map(cleared::sameAs).orElse(false));
        assertThat(apps.secrets(a.appKey())).containsExactly(a.secret());
    }

    /**
     * A refresh reads the table, then a registration saves and puts its application, then the refresh publishes
     * what it read: the registration must survive (it did not while refresh ran outside the lock that put takes).
     */
    @Test
    void aRefreshRacingARegistrationDoesNotDropIt() throws Exception {
        JdbcAppStore store = db.newStore();
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch publish = new CountDownLatch(1);
        AppStore pausing = new PausingAppStore(store, read, publish);
        apps = new ServiceApps(pausing, Duration.ofMinutes(1));
        ServiceApp registered = newApp().build();

        Thread refresher = new Thread(apps::refresh, "refresher");
        refresher.start();
        assertThat(read.await(10, TimeUnit.SECONDS)).as("the refresh read the table").isTrue();
        Thread registrar = new Thread(() -> apps.register(registered), "registrar");
        registrar.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registrar.getState() == Thread.State.BLOCKED
                || registrar.getState() == Thread.State.TERMINATED);
        publish.countDown();
        refresher.join(10_000);
        registrar.join(10_000);

        assertThat(store.find(registered.appKey())).as("saved").isPresent();
        assertThat(apps.find(registered.appKey())).as("still counts on this instance").isPresent();
    }

    @Test
    void theRefreshIntervalMustBePositive() {
        for (Duration interval : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> new ServiceApps(db.newStore(), interval))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshInterval");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A store whose {@code findAll} signals once it has read and returns only when told to. */
    private record PausingAppStore(AppStore store, CountDownLatch read, CountDownLatch publish) implements AppStore {

        @Override
        public List<ServiceApp> findAll() {
            List<ServiceApp> all = store.findAll();
            read.countDown();
            try {
                publish.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return all;
        }

        @Override
        public Optional<ServiceApp> find(String appKey) {
            return store.find(appKey);
        }

        @Override
        public void save(ServiceApp app) {
            store.save(app);
        }

        @Override
        public ServiceApp saveIfMissing(ServiceApp app) {
            return store.saveIfMissing(app);
        }

        @Override
        public String description() {
            return store.description();
        }
    }
}
