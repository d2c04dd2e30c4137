package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import io.github.idworker.service.jdbc.JdbcAppStore;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How configured applications are written to the application table at startup: configured values win, an unset
 * secret keeps the stored one, an unset {@code enabled} keeps an operator's {@code FALSE} — a restart never
 * re-enables a disabled application — and a bad value names its property without the secret.
 */
class IdServiceConfigTest {

    private final JdbcAppStore store = new JdbcAppStore(new DriverManagerDataSource("jdbc:h2:mem:apps-"
            + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", ""));

    IdServiceConfigTest() {
        store.createSchemaIfMissing();
    }

    private static IdServiceProperties.App billing(String secret, Boolean enabled) {
        IdServiceProperties.App app = new IdServiceProperties.App();
        app.setSecret(secret);
        app.setEnabled(enabled);
        app.setEntities(List.of("order"));
        return app;
    }

    private ServiceApp start(IdServiceProperties.App app) {
        IdServiceProperties properties = new IdServiceProperties();
        properties.getApps().put("billing", app);
        try (ServiceApps apps = new IdServiceConfig().serviceApps(store, properties)) {
            return apps.find("billing").orElseThrow();
        }
    }

    @Test
    void aRestartKeepsAnApplicationAnOperatorDisabledUnlessConfigurationSaysOtherwise() {
        assertThat(start(billing("billing-secret-0123456789", null)).enabled()).isTrue();
        ServiceApp stored = store.find("billing").orElseThrow();
        store.save(stored.toBuilder().enabled(false).build());

        assertThat(start(billing("billing-secret-0123456789", null)).enabled()).as("enabled unset").isFalse();
        assertThat(store.find("billing").orElseThrow().enabled()).isFalse();
        assertThat(start(billing("billing-secret-0123456789", true)).enabled()).as("enabled: true").isTrue();
    }

    @Test
    void anUnsetSecretKeepsTheStoredOneAndAConfiguredOneReplacesIt() {
        start(billing("billing-secret-0123456789", null));
        assertThat(start(billing(null, null)).secret()).isEqualTo("billing-secret-0123456789");
        assertThat(start(billing("billing-secret-rotated-01", null)).secret()).isEqualTo("billing-secret-rotated-01");
    }

    @Test
    void anUnsetSecretOfANewApplicationIsDrawnAndStored() {
        ServiceApp drawn = start(billing(null, null));
        assertThat(drawn.secret()).hasSize(43);
        assertThat(store.find("billing").orElseThrow().secret()).isEqualTo(drawn.secret());
    }

    @Test
    void aBadValueNamesItsPropertyAndNeverTheSecret() {
        assertThatThrownBy(() -> start(billing("short-secret", null)))
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageStartingWith("idworker.service.apps.billing.secret: ")
                .hasMessageNotContaining("short-secret");
        IdServiceProperties properties = new IdServiceProperties();
        properties.setRefreshInterval(Duration.ZERO);
        assertThatThrownBy(() -> new IdServiceConfig().serviceApps(store, properties))
                .hasMessageStartingWith("idworker.service.refresh-interval: ");
    }
}
