package io.github.idworker.server;

import io.github.idworker.client.IdServiceClient;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar this build packaged, run with {@code java -jar} and environment variables alone — no profile, no
 * argument — over the machine's MariaDB or PostgreSQL and its Redis 7, as a deployment runs it. Guarantees
 * checked: it starts and both probes answer 200; it registers nothing but what is configured (no application
 * {@code demo}, no pool entity {@code user}, no serial rules {@code order} or {@code invoice}, no auto-created
 * segment tags); every family serves (snowflake, a configured segment tag and its sequence, a configured serial
 * rule, a configured pool entity to the configured application through the Java client); SIGTERM stops it within
 * 30 s and the worker says it returned its worker id. Tables and Redis keys are named after a random tag and
 * namespace, and removed afterwards ({@link ServiceEnvironment#close()}).
 */
@Tag("real-services")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ServerJarRealServicesIT {

    private static final String APP = "jarit";
    private static final String ENTITY = "accounts";
    private static final String TAG = "tickets";
    private static final String RULE = "receipt";

    @TempDir
    Path logs;

    @Test
    void theJarServesEveryFamilyOverMariaDbFromEnvironmentVariablesAloneAndStopsOnSigterm() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.external(RealServices.MARIADB_URL,
                RealServices.MARIADB_USER, RealServices.REDIS_HOST, RealServices.REDIS_PORT)) {
            runAndStop(environment, "MariaDB");
        }
    }

    @Test
    void theJarServesEveryFamilyOverPostgreSqlFromEnvironmentVariablesAloneAndStopsOnSigterm() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.external(RealServices.POSTGRES_URL,
                RealServices.POSTGRES_USER, RealServices.REDIS_HOST, RealServices.REDIS_PORT)) {
            runAndStop(environment, "PostgreSQL");
        }
    }

    private void runAndStop(ServiceEnvironment environment, String database) throws Exception {
        String secret = "jar-" + UUID.randomUUID();
        int port = EmbeddedRedisInitializer.freePort();
        long startedAt = System.nanoTime();
        // "user" is granted on purpose: a pool call for it then tells an unknown entity (404) from a refusal (403)
        ServerJar server = environment.startJar(port, logs.resolve("server.log"),
                "--idworker.service.apps." + APP + ".secret=" + secret,
                "--idworker.service.apps." + APP + ".entities=" + ENTITY + ",user",
                "--idworker.pool.entities." + ENTITY + ".name=accounts of the jar test",
                "--idworker.pool.entities." + ENTITY + ".max-pool-size=5000",
                "--idworker.segment.tags." + TAG + ".start-after=1000",
                "--idworker.serial.rules." + RULE + ".prefix=RC",
                "--idworker.serial.rules." + RULE + ".width=6");
        server.awaitReady(Duration.ofSeconds(120));
        double startSeconds = (System.nanoTime() - startedAt) / 1e9;

        assertThat(server.status("/actuator/health/liveness")).as("liveness").isEqualTo(200);
        assertThat(server.status("/actuator/health/readiness")).as("readiness").isEqualTo(200);

        registersNothingButWhatIsConfigured(environment, server, secret);
        everyFamilyServes(server, secret);

        long stoppingAt = System.nanoTime();
        boolean exited = server.terminate(Duration.ofSeconds(30));
        double stopSeconds = (System.nanoTime() - stoppingAt) / 1e9;
        System.out.printf("JAR (%s): ready %.1f s after java -jar; SIGTERM to exit %.1f s, exit code %s%n", database,
                startSeconds, stopSeconds, exited ? server.process.exitValue() : "none (killed)");
        assertThat(exited).as("exited within 30 s of SIGTERM:\n%s", server.tail(30)).isTrue();
        assertThat(server.output()).as("the worker returned its id on the way down")
                .containsPattern("INFO .*returned worker id \\d+");
    }

    private static void registersNothingButWhatIsConfigured(ServiceEnvironment environment, ServerJar server,
                                                             String secret) throws Exception {
        JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(environment.databaseUrl,
                environment.databaseUser, ""));
        assertThat(jdbc.sql("SELECT app_key FROM " + environment.table("app")).query(String.class).list())
                .as("applications").containsExactly(APP);
        assertThat(jdbc.sql("SELECT entity_key FROM " + environment.table("pool")).query(String.class).list())
                .as("pool entities").containsExactly(ENTITY);
        assertThat(jdbc.sql("SELECT rule_name FROM " + environment.table("serial")).query(String.class).list())
                .as("serial rules").containsExactly(RULE);
        assertThat(jdbc.sql("SELECT biz_tag FROM " + environment.table("segment")).query(String.class).list())
                .as("segment tags").containsExactly(TAG);

        for (String demoRule : List.of("order", "invoice")) {
            assertThat(SampleHttp.get(server.port, "/serials/" + demoRule).status()).as("demo rule %s", demoRule)
                    .isEqualTo(404);
        }
        // production keeps idworker.segment.auto-create off: an unregistered tag is a 404, not a new row
        assertThat(SampleHttp.get(server.port, "/ids/segment/unregistered").status()).isEqualTo(404);
        assertThat(SampleHttp.get(server.port, "/ids/sequence/unregistered").status()).isEqualTo(404);
        RequestSigner signer = new RequestSigner(APP, secret);
        assertThat(SignedHttp.signedGet(server.port, signer, "/pools/user/ids", "").status())
                .as("the demo entity 'user', granted but not registered").isEqualTo(404);
        RequestSigner demo = new RequestSigner("demo", "not-the-demo-secret-0123456789");
        assertThat(SignedHttp.signedGet(server.port, demo, "/pools/user/ids", "").status())
                .as("the demo application").isEqualTo(401);
    }

    private static void everyFamilyServes(ServerJar server, String secret) throws Exception {
        long[] snowflake = SampleHttp.get(server.port, "/ids/next?count=3").ids();
        assertThat(snowflake).hasSize(3).doesNotHaveDuplicates().isSorted();
        assertThat(SampleHttp.get(server.port, "/ids/decode/" + snowflake[0]).status()).isEqualTo(200);

        long[] segment = SampleHttp.get(server.port, "/ids/segment/" + TAG + "?count=3").ids();
        assertThat(segment).as("segment numbers above start-after").containsExactly(1001, 1002, 1003);
        long[] sequence = SampleHttp.get(server.port, "/ids/sequence/" + TAG + "?count=3").ids();
        assertThat(sequence).hasSize(3).doesNotHaveDuplicates().isSorted().doesNotContain(segment);
        assertThat(sequence[0]).as("sequence numbers above start-after").isGreaterThan(1000);

        List<String> serials = SampleHttp.get(server.port, "/serials/" + RULE + "?count=2").strings();
        assertThat(serials).hasSize(2).allMatch(s -> s.matches("RC\\d{6}")).doesNotHaveDuplicates().isSorted();

        try (IdServiceClient client = IdServiceClient.builder().appKey(APP).secret(secret)
                .environments(List.of(server.uri())).batchSize(100).maxWait(Duration.ofSeconds(10)).build()) {
            long[] pooled = client.nextIds(ENTITY, 10);
            assertThat(pooled).hasSize(10).doesNotHaveDuplicates();
            assertThat(Arrays.stream(pooled).min().orElseThrow()).isPositive();
        }
    }
}
