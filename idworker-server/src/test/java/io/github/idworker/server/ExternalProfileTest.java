package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import redis.embedded.RedisServer;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Profile {@code external} in the default build: over an H2 server and an embedded Redis this test starts (both
 * outlive the application, as real servers would) numbers continue across a restart; without a shared database
 * the application refuses to start, naming {@code spring.datasource.url} and how to set it, instead of keeping
 * numbers in a private in-memory H2.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExternalProfileTest extends AbstractExternalProfileTest {

    private static final int DB_PORT = EmbeddedRedisInitializer.freePort();
    private static final int REDIS_PORT = EmbeddedRedisInitializer.freePort();
    private static final String DATABASE_URL = "jdbc:h2:tcp://127.0.0.1:" + DB_PORT + "/mem:ext-" + UUID.randomUUID()
            + ";DB_CLOSE_DELAY=-1";
    private static Server database;
    private static RedisServer redis;

    ExternalProfileTest() {
        super(DATABASE_URL, "sa", "127.0.0.1", REDIS_PORT);
    }

    @BeforeAll
    static void startServers() throws Exception {
        database = Server.createTcpServer("-tcpPort", Integer.toString(DB_PORT), "-ifNotExists").start();
        redis = RedisServer.newRedisServer().port(REDIS_PORT).bind("127.0.0.1")
                .setting("save \"\"").setting("appendonly no").build();
        redis.start();
    }

    @AfterAll
    static void stopServers() throws Exception {
        redis.stop();
        database.stop();
    }

    /** Starting must fail; a context that started anyway is closed before the assertions. */
    private Throwable failureOfStarting(String[] profiles, List<String> datasourceArguments) {
        return catchThrowable(() -> startWith(profiles, datasourceArguments).close());
    }

    @Test
    void withoutADatasourceUrlStartupFailsNamingItAndHowToSetIt(CapturedOutput output) {
        Throwable failure = failureOfStarting(new String[] {"external"}, List.of());

        assertThat(failure).as("startup without spring.datasource.url")
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageStartingWith("spring.datasource.url: the server keeps segments (/ids/segment), "
                        + "the ranges of the Redis sequences (/ids/sequence), the serial rules and their "
                        + "high-waters (/serials), the ID pools' offsets (/pools) and the applications allowed to call "
                        + "/pools in the database given by spring.datasource.url")
                .hasMessageContaining("which is not set")
                .hasMessageContaining("SPRING_DATASOURCE_URL=jdbc:mariadb://")
                .hasMessageContaining("SPRING_DATASOURCE_URL=jdbc:postgresql://");
        assertThat(output).contains("APPLICATION FAILED TO START").contains("correct 'spring.datasource.url'");
    }

    @Test
    void anInMemoryH2UrlIsRefusedWithoutRepeatingTheUrl() {
        Throwable failure = failureOfStarting(new String[] {"external"},
                List.of("--spring.datasource.url=jdbc:h2:mem:ids-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"));

        assertThat(failure).isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageStartingWith("spring.datasource.url: ")
                .hasMessageContaining("in-memory H2 database")
                .hasMessageNotContaining("DB_CLOSE_DELAY");
    }

    @Test
    void withTheDbCentreTheWorkerLeasesNeedTheDatabaseToo() {
        Throwable failure = failureOfStarting(new String[] {"external"}, List.of("--idworker.server.centre=db"));

        assertThat(failure).isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageStartingWith("spring.datasource.url: ")
                .hasMessageContaining("the serial rules and their high-waters (/serials)")
                .hasMessageContaining("the worker-id leases (idworker.server.centre=db)");
    }

    /**
     * Finding 9 as the sample shows it: a 404 for an unknown tag or serial rule must not echo a password carried in
     * the JDBC URL.
     * Needs idworker's redaction of store locations in messages.
     */
    @Test
    void theNotFoundBodyOfAnUnknownTagNeverShowsThePasswordOfTheDatabaseUrl() throws Exception {
        String secret = "Pw-" + UUID.randomUUID();
        String url = "jdbc:h2:tcp://127.0.0.1:" + DB_PORT + "/mem:secret-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;password=" + secret;
        try (ConfigurableApplicationContext app = startWith(new String[] {"external"}, List.of(
                "--spring.datasource.url=" + url, "--spring.datasource.username=sa",
                "--idworker.segment.auto-create=false"))) {
            for (String path : List.of("/ids/segment/no-such-tag", "/ids/sequence/no-such-tag",
                    "/serials/no-such-rule")) {
                SampleHttp.Response response = SampleHttp.get(port(app), path);
                assertThat(response.status()).isEqualTo(404);
                assertThat(response.body().toString()).as("%s body", path).doesNotContain(secret);
            }
        }
    }

    /**
     * Without profile {@code demo} the server registers nothing of the demo (no application {@code demo}, no pool
     * entity {@code user}, no serial rules), starts no Redis of its own, shows the overall health only and answers
     * both probes.
     */
    @Test
    void withoutProfileDemoNothingOfTheDemoIsRegisteredAndBothProbesAnswer() throws Exception {
        String url = "jdbc:h2:tcp://127.0.0.1:" + DB_PORT + "/mem:nodemo-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (ConfigurableApplicationContext app = new org.springframework.boot.builder.SpringApplicationBuilder(
                IdWorkerServerApplication.class).profiles("prod").run("--server.port=0",
                "--spring.datasource.url=" + url, "--spring.datasource.username=sa",
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + REDIS_PORT,
                "--idworker.namespace=" + namespace, "--idworker.redis.key-prefix=" + namespace,
                "--idworker.lease.ttl=2s", "--idworker.lease.max-skew=100ms", "--idworker.lease.loss-guard=2100ms",
                "--idworker.segment.initialize-schema=always", "--idworker.serial.initialize-schema=always",
                "--idworker.pool.initialize-schema=always", "--idworker.service.initialize-schema=always")) {
            org.springframework.jdbc.core.simple.JdbcClient db = org.springframework.jdbc.core.simple.JdbcClient
                    .create(app.getBean(javax.sql.DataSource.class));
            assertThat(db.sql("SELECT COUNT(*) FROM idworker_app").query(Long.class).single()).isZero();
            assertThat(db.sql("SELECT COUNT(*) FROM idworker_id_pool").query(Long.class).single()).isZero();
            assertThat(db.sql("SELECT COUNT(*) FROM idworker_serial_rule").query(Long.class).single()).isZero();
            assertThat(app.getEnvironment().getPropertySources().contains("embeddedRedis")).isFalse();

            int port = port(app);
            assertThat(SampleHttp.get(port, "/serials/order").status()).isEqualTo(404);
            assertThat(SampleHttp.get(port, "/ids/segment/order").status()).as("no auto-created tags").isEqualTo(404);
            assertThat(SampleHttp.get(port, "/ids/next?count=2").ids()).hasSize(2);
            SampleHttp.Response health = SampleHttp.get(port, "/actuator/health");
            assertThat(health.body().path("status").asString()).isEqualTo("UP");
            assertThat(health.body().has("components")).as("details to authorised users only").isFalse();
            assertThat(SampleHttp.get(port, "/actuator/health/liveness").status()).isEqualTo(200);
            assertThat(SampleHttp.get(port, "/actuator/health/readiness").status()).isEqualTo(200);
        }
    }
}
