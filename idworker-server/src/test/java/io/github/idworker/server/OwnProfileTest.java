package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.service.ServiceApps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zero setup belongs to the default profile alone: with a profile of the user's own (here "staging") the sample
 * starts no embedded Redis of its own — it uses the Redis configured — and registers neither the demo application
 * nor the demo entity, so neither reaches a real table. The demo's drawn secret is handed over in a file only the
 * user can read, never in a log line.
 */
@Tag("slow")
@ExtendWith(OutputCaptureExtension.class)
class OwnProfileTest {

    @Test
    void theDefaultProfileRegistersTheDemoAndHandsItsDrawnSecretOverInAnOwnerOnlyFileNeverInTheLog(
            CapturedOutput output, @TempDir Path tmp) throws Exception {
        String tmpdir = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", tmp.toString());
        try (ConfigurableApplicationContext context = new org.springframework.boot.builder.SpringApplicationBuilder(
                IdWorkerServerApplication.class).run("--server.port=0", "--spring.data.redis.port=0",
                "--spring.datasource.url=jdbc:h2:mem:demo-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")) {
            Optional<ServiceApp> demo = context.getBean(ServiceApps.class).find("demo");
            assertThat(demo).as("the demo application").isPresent();
            assertThat(context.getEnvironment().getProperty("idworker.pool.entities.user.max-per-second"))
                    .isEqualTo("500000");

            String secret = demo.get().secret();
            Path file = tmp.resolve("idworker-service-demo.secret");
            assertThat(Files.readString(file).strip()).isEqualTo(secret);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(output.getAll()).contains("written to " + file).doesNotContain(secret);
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
    }

    @Test
    void aFilePlantedAtTheSecretsNameIsReplacedNotWrittenThrough(@TempDir Path tmp) throws Exception {
        Path target = Files.writeString(tmp.resolve("elsewhere"), "unchanged");
        Path file = tmp.resolve("idworker-service-x.secret");
        Files.createSymbolicLink(file, target);
        IdServiceConfig.writeOwnerOnly(file, "drawn-secret");
        assertThat(Files.readString(target)).isEqualTo("unchanged");
        assertThat(Files.isSymbolicLink(file)).isFalse();
        assertThat(Files.readString(file).strip()).isEqualTo("drawn-secret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aProfileOfYourOwnGetsNeitherTheEmbeddedRedisNorTheDemo() throws Exception {
        try (ServiceEnvironment environment = ServiceEnvironment.embedded()) {
            ConfigurableApplicationContext context = environment.startWithProfile("staging");
            assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class))
                    .as("the configured Redis, not an embedded one").isEqualTo(environment.redisPort);
            assertThat(context.getBean(ServiceApps.class).find("demo")).as("the demo application").isEmpty();
            assertThat(context.getEnvironment().getProperty("idworker.pool.entities.user.max-per-second"))
                    .as("the demo entity").isNull();
        }
    }
}
