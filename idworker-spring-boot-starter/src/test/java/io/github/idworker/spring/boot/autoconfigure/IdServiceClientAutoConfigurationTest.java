package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.client.IdServiceClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code idServiceClient} from {@code idworker.client.*}: when it is there, what it is built from, how it fails. */
class IdServiceClientAutoConfigurationTest {

    private static final String SECRET = "client-secret-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdServiceClientAutoConfiguration.class));

    private ApplicationContextRunner configured() {
        return runner.withPropertyValues("idworker.client.app-key=orders-app", "idworker.client.secret=" + SECRET,
                "idworker.client.environments=http://127.0.0.1:18080,https://ids-b.example.com:8443");
    }

    @Test
    void isRegisteredAsAnAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(IdServiceClientAutoConfiguration.class.getName());
    }

    @Test
    void theClientIsBuiltFromEveryProperty() {
        configured().withPropertyValues("idworker.client.batch-size=50", "idworker.client.refill-threshold=10",
                "idworker.client.connect-timeout=300ms", "idworker.client.request-timeout=700ms",
                "idworker.client.failure-threshold=2", "idworker.client.open-duration=2s",
                "idworker.client.max-wait=4s").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(IdServiceClient.class)
                    .hasBean(IdServiceClientAutoConfiguration.CLIENT_BEAN);
            IdServiceClient client = context.getBean(IdServiceClient.class);
            assertThat(client.toString()).isEqualTo("IdServiceClient[appKey=orders-app, environments="
                    + "[http://127.0.0.1:18080, https://ids-b.example.com:8443], batchSize=50, refillThreshold=10, "
                    + "connectTimeout=300ms, requestTimeout=700ms, failureThreshold=2, openDuration=2000ms, "
                    + "maxWait=4000ms]").doesNotContain(SECRET);
        });
    }

    @Test
    void unsetPropertiesTakeTheClientsDefaults() {
        configured().run(context -> assertThat(context.getBean(IdServiceClient.class).toString())
                .contains("batchSize=1000, refillThreshold=500, connectTimeout=1000ms, requestTimeout=2000ms, "
                        + "failureThreshold=3, openDuration=5000ms, maxWait=5000ms"));
        IdServiceClientProperties properties = new IdServiceClientProperties();
        assertThat(properties.getBatchSize()).isEqualTo(IdServiceClient.DEFAULT_BATCH_SIZE);
        assertThat(properties.getConnectTimeout()).isEqualTo(IdServiceClient.DEFAULT_CONNECT_TIMEOUT);
        assertThat(properties.getRequestTimeout()).isEqualTo(IdServiceClient.DEFAULT_REQUEST_TIMEOUT);
        assertThat(properties.getFailureThreshold()).isEqualTo(IdServiceClient.DEFAULT_FAILURE_THRESHOLD);
        assertThat(properties.getOpenDuration()).isEqualTo(IdServiceClient.DEFAULT_OPEN_DURATION);
        assertThat(properties.getRefillThreshold()).as("half the batch, left to the client").isNull();
        assertThat(properties.getMaxWait()).as("from the request timeout, left to the client").isNull();
    }

    @Test
    void environmentsMayBeGivenAsAnIndexedList() {
        runner.withPropertyValues("idworker.client.app-key=orders-app", "idworker.client.secret=" + SECRET,
                "idworker.client.environments[0]=http://127.0.0.1:18080",
                "idworker.client.environments[1]=http://127.0.0.1:18081").run(context -> {
            assertThat(context).hasSingleBean(IdServiceClient.class);
            assertThat(context.getBean(IdServiceClient.class).stats().endpoints()).extracting(e -> e.baseUrl())
                    .containsExactly(URI.create("http://127.0.0.1:18080"), URI.create("http://127.0.0.1:18081"));
        });
    }

    @Test
    void noClientWithoutEnvironments() {
        runner.withPropertyValues("idworker.client.app-key=orders-app", "idworker.client.secret=" + SECRET)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdServiceClient.class));
        runner.withPropertyValues("idworker.client.environments=")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdServiceClient.class));
    }

    @Test
    void noClientWithoutTheClientJar() {
        configured().withClassLoader(new FilteredClassLoader(IdServiceClient.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(
                        IdServiceClientAutoConfiguration.CLIENT_BEAN));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "close")
        IdServiceClient myClient() {
            return IdServiceClient.builder().appKey("mine").secret("my-secret-0123456789")
                    .environments(List.of(URI.create("http://127.0.0.1:19999"))).build();
        }
    }

    @Test
    void theApplicationsOwnClientWins() {
        configured().withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(IdServiceClient.class).hasBean("myClient")
                    .doesNotHaveBean(IdServiceClientAutoConfiguration.CLIENT_BEAN);
        });
    }

    @Test
    void theClientIsClosedWithTheContext() {
        IdServiceClient[] client = new IdServiceClient[1];
        configured().run(context -> client[0] = context.getBean(IdServiceClient.class));
        assertThatThrownBy(() -> client[0].nextId("user"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aBadValueFailsTheStartupNamingItsPropertyAndNeverTheSecret() {
        Map<String, String> bad = Map.of(
                "idworker.client.batch-size", "0",
                "idworker.client.refill-threshold", "5000",
                "idworker.client.connect-timeout", "0s",
                "idworker.client.request-timeout", "2d",
                "idworker.client.failure-threshold", "0",
                "idworker.client.open-duration", "0ms",
                "idworker.client.max-wait", "0s",
                "idworker.client.app-key", "has space",
                "idworker.client.environments[1]", "ftp://files.example.com");
        bad.forEach((property, value) -> runner.withPropertyValues("idworker.client.app-key=orders-app",
                "idworker.client.secret=" + SECRET, "idworker.client.environments[0]=http://a:1",
                property + "=" + value).run(context -> {
            assertThat(context).as(property).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo(property);
            assertThat(cause.getMessage()).startsWith(property + ": ");
            FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("'idServiceClient'").contains(property);
            assertThat(analysis.getAction()).contains(property);
            assertNoSecret(context.getStartupFailure());
            assertThat(analysis.getDescription()).doesNotContain(SECRET);
        }));
    }

    @Test
    void aValueThatIsNoUriIsNamedByItsIndexWithoutEchoingIt() {
        // neither is a URI; Spring's conversion to URI would re-encode the first and fail on the second, printing it
        Map<String, String> reasons = Map.of(
                "http://user:pa%zzss@host:1", "Malformed escape pair at character 14",
                "http://user:pa-zzss@[::1:1", "Expected closing bracket for IPv6 address at character 26");
        reasons.forEach((value, reason) -> runner.withPropertyValues("idworker.client.app-key=orders-app",
                "idworker.client.secret=" + SECRET, "idworker.client.environments=http://127.0.0.1:18080," + value)
                .run(context -> {
                    assertThat(context).as(value).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.client.environments");
                    assertThat(cause.getMessage()).isEqualTo("idworker.client.environments: value [1] is not a URI ("
                            + reason + "); it is not shown, as it may hold a password; give http(s)://host:port");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("idworker.client.environments")
                            .doesNotContain("zzss");
                    assertThat(analysis.getAction()).doesNotContain("zzss");
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t)).as(value).doesNotContain("zzss").doesNotContain("user:");
                    }
                }));
        runner.withPropertyValues("idworker.client.app-key=orders-app", "idworker.client.secret=" + SECRET,
                "idworker.client.environments[0]=http://127.0.0.1:18080", "idworker.client.environments[1]= ")
                .run(context -> assertThat(StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class).getMessage())
                        .isEqualTo("idworker.client.environments: value [1] is blank; give http(s)://host:port"));
    }

    /** The service accepts only 16 to 256 printable ASCII characters; any other secret fails here, not at every call. */
    @Test
    void aSecretOfAFormTheServiceRefusesFailsTheStartupNamingThePropertyAndNeverTheSecret() {
        String shortSecret = "hunter2-" + UUID.randomUUID().toString().substring(0, 4);
        runner.withPropertyValues("idworker.client.environments=http://a:1", "idworker.client.app-key=orders-app",
                "idworker.client.secret=" + shortSecret).run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.client.secret");
                    assertThat(cause.getMessage()).isEqualTo("idworker.client.secret: must be 16 to 256 characters, "
                            + "was 12; allowed: 16 to 256 printable ASCII characters without spaces, the form the ID "
                            + "service issues and accepts");
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    // the property's name holds "secret", which is no assignment of one: the message stays whole
                    assertThat(analysis.getDescription()).contains("idworker.client.secret: must be 16 to 256 "
                            + "characters, was 12;");
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t)).doesNotContain(shortSecret);
                    }
                    assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(shortSecret);
                });
    }

    @Test
    void aMissingKeyOrSecretIsNamed() {
        runner.withPropertyValues("idworker.client.environments=http://a:1", "idworker.client.secret=" + SECRET)
                .run(context -> {
                    assertThat(StartupFailures.cause(context.getStartupFailure(), IdWorkerConfigurationException.class)
                            .getMessage()).isEqualTo("idworker.client.app-key: must not be blank");
                    assertNoSecret(context.getStartupFailure());
                });
        runner.withPropertyValues("idworker.client.environments=http://a:1", "idworker.client.app-key=orders-app")
                .run(context -> assertThat(StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class).getMessage())
                        .isEqualTo("idworker.client.secret: must not be blank"));
    }

    @Test
    void aRefillThresholdAboveTheBatchIsNamedWithTheBatch() {
        configured().withPropertyValues("idworker.client.batch-size=100", "idworker.client.refill-threshold=101")
                .run(context -> assertThat(StartupFailures.cause(context.getStartupFailure(),
                        IdWorkerConfigurationException.class).getMessage())
                        .isEqualTo("idworker.client.refill-threshold: must be from 0 to batchSize 100, was 101"));
    }

    /** IDEs show what the client really does; descriptions in Boot's wording (checked for all in the metadata test). */
    @Test
    void theMetadataDescribesEveryClientPropertyWithItsDefault() throws Exception {
        JsonNode generated;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            generated = JsonMapper.builder().build().readTree(in);
        }
        Map<String, String> defaults = new HashMap<>();
        for (JsonNode property : generated.get("properties")) {
            String name = property.get("name").asString();
            if (name.startsWith("idworker.client.")) {
                assertThat(property.path("description").asString()).as(name).isNotBlank();
                defaults.put(name, property.path("defaultValue").asString(""));
            }
        }
        assertThat(defaults).containsOnlyKeys("idworker.client.app-key", "idworker.client.secret",
                "idworker.client.environments", "idworker.client.batch-size", "idworker.client.refill-threshold",
                "idworker.client.connect-timeout", "idworker.client.request-timeout",
                "idworker.client.failure-threshold", "idworker.client.open-duration", "idworker.client.max-wait");
        assertThat(defaults).containsEntry("idworker.client.batch-size", "1000")
                .containsEntry("idworker.client.connect-timeout", "1s")
                .containsEntry("idworker.client.request-timeout", "2s")
                .containsEntry("idworker.client.failure-threshold", "3")
                .containsEntry("idworker.client.open-duration", "5s");
    }

    private static void assertNoSecret(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain(SECRET);
            assertThat(String.valueOf(t)).doesNotContain(SECRET);
        }
    }
}
