package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code idWorker} health component over a real H2 centre: UP with the lease while the worker can issue,
 * DOWN once it is fenced because its centre stopped renewing, DOWN when closed; absent when health is switched
 * off or when {@code spring-boot-health} is missing. A renewal failure shows as its class, time and errorId, never
 * its message (the centre's table and URL), which is in the log under that errorId.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdWorkerHealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    private ApplicationContextRunner db(String... properties) {
        return runner.withUserConfiguration(DbApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.namespace=" + TestNames.namespace())
                .withPropertyValues(properties);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workerDetails(Health health) {
        return (Map<String, Object>) health.getDetails().get(DBIdWorkerConfig.WORKER_BEAN);
    }

    @Test
    void upWithTheLeaseWhileTheWorkerCanIssue() {
        db().run(context -> {
            AbstractIdWorker worker = context.getBean(AbstractIdWorker.class);
            Health health = context.getBean("idWorkerHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            Map<String, Object> details = workerDetails(health);
            assertThat(details).containsEntry("namespace", worker.namespace())
                    .containsEntry("state", "issuing")
                    .containsEntry("workerId", worker.currentLease().workerId())
                    .containsEntry("highWater", Instant.ofEpochMilli(worker.currentLease().highWaterMillis()).toString())
                    .containsEntry("leaseSwitches", 0L)
                    .doesNotContainKey("lastRenewalFailure");
            assertThat((long) details.get("millisToHighWater")).isPositive();
        });
    }

    @Test
    void downOnceTheCentreStopsRenewingAndTheHighWaterPasses(CapturedOutput output) {
        String url = TestNames.h2Url();
        db("spring.datasource.url=" + url, "idworker.lease.ttl=4s", "idworker.lease.loss-guard=4010ms", "idworker.jdbc.statement-timeout=1s", "idworker.jdbc.network-timeout=2s",
                "idworker.jdbc.table=idworker_health_slot").run(context -> {
            HealthIndicator indicator = context.getBean("idWorkerHealthIndicator", HealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            try (Connection c = context.getBean(DataSource.class).getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE idworker_health_slot");
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health().getStatus().equals(Status.DOWN));
            Map<String, Object> details = workerDetails(indicator.health());
            assertThat(details).containsEntry("state", "fenced");
            assertThat((long) details.get("millisToHighWater")).isNegative();
            String failure = (String) details.get("lastRenewalFailure");
            // published: class, time, errorId; not the table, the URL or the database's message
            assertThat(failure).matches("[\\w.$]+ at \\S+Z \\(errorId [0-9a-f]{16}\\)");
            assertThat(indicator.health().getDetails().toString()).doesNotContainIgnoringCase("idworker_health_slot")
                    .doesNotContain("jdbc:").doesNotContain(url.substring("jdbc:h2:".length()));
            Matcher id = Pattern.compile("errorId ([0-9a-f]{16})").matcher(failure);
            assertThat(id.find()).isTrue();
            // the cause is in the log, once, under that errorId
            String logged = output.getAll().lines().filter(l -> l.contains("errorId " + id.group(1) + ":"))
                    .reduce((a, b) -> a + "\n" + b).orElse("");
            assertThat(logged).as("the log line of errorId " + id.group(1)).containsIgnoringCase("idworker_health_slot")
                    .doesNotContain("\n");
        });
    }

    @Test
    void downWhenTheWorkerIsClosed() {
        db().run(context -> {
            context.getBean(AbstractIdWorker.class).close();
            Health health = context.getBean("idWorkerHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(workerDetails(health)).containsEntry("state", "closed").doesNotContainKey("workerId");
        });
    }

    @Test
    void absentWhenSwitchedOffOrWithoutHealthOnTheClasspath() {
        db("management.health.idworker.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(AbstractIdWorker.class);
            assertThat(context).doesNotHaveBean(IdWorkerHealthIndicator.class);
        });
        db().withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(AbstractIdWorker.class);
            assertThat(context).doesNotHaveBean(IdWorkerHealthIndicator.class);
        });
    }
}
