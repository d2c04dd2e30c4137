package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database that answers and refuses the login fails the startup as a refused login naming the user, whether a
 * password was sent and the two properties, never the password; not as a database that cannot be reached. H2 keeps
 * the first user and password of an in-memory database and refuses others (SQLSTATE 28000).
 */
class RefusedLoginTest {

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    static ApplicationContextRunner db(String url, String user, String password) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(DbApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + url, "spring.datasource.username=" + user,
                        "spring.datasource.password=" + password, "idworker.namespace=" + TestNames.namespace(),
                        "spring.datasource.hikari.connection-timeout=2000",
                        // no embedded-database check: each refused login costs H2 a growing delay (its brute-force guard)
                        "idworker.jdbc.initialize-schema=never");
    }

    @Test
    void aWrongPasswordIsReportedAsARefusedLoginNotAsAnUnreachableDatabase() throws Exception {
        String url = TestNames.h2Url();
        String right = "right-" + UUID.randomUUID();
        String wrong = "wrong-" + UUID.randomUUID();
        // the first connection creates the database with this user and password; it stays open for the test
        try (Connection owner = DriverManager.getConnection(url, "app", right)) {
            db(url, "app", wrong).run(context -> {
                assertThat(context).hasFailed();
                CenterLoginRefusedException cause = StartupFailures.cause(context.getStartupFailure(),
                        CenterLoginRefusedException.class);
                assertThat(cause.getMessage()).startsWith("The database at " + url + " refused the login of user "
                        + "'app' (using password: YES), so idworker could not ")
                        .contains("(spring.datasource.username, spring.datasource.password): Wrong user name or "
                                + "password [28000-").doesNotContain("Cannot reach").doesNotContain(wrong)
                        .doesNotContain(right);
                FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("refused the login of user 'app' (using password: YES)")
                        .doesNotContain(wrong);
                assertThat(analysis.getAction()).startsWith("The database answered and refused the login: correct "
                        + "spring.datasource.username and spring.datasource.password").doesNotContain("running");
            });
            db(url, "app", "").run(context -> assertThat(StartupFailures.cause(context.getStartupFailure(),
                    CenterLoginRefusedException.class).getMessage()).contains("user 'app' (using password: NO)"));
            assertThat(owner.isValid(1)).isTrue();
        }
    }
}
