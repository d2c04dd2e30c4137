package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterLoginRefusedException;
import io.github.idworker.test.RealServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refused login on the machine's database servers ({@link RealServices}). MariaDB: a temporary user with a
 * password of its own, logged in with another; dropped afterwards. PostgreSQL: this machine's server trusts every
 * local connection (trust authentication accepts any password), so a wrong password cannot be shown there; a role
 * that does not exist is refused all the same (SQLSTATE 28000), and that is what is tested.
 */
@Tag("real-services")
class RealServicesRefusedLoginTest {

    @Test
    void mariaDbRefusesAWrongPasswordAndTheFailureSaysSoKeepingUsingPasswordYes() throws Exception {
        String user = "idw_" + UUID.randomUUID().toString().substring(0, 8);
        String right = "right-" + UUID.randomUUID();
        String wrong = "wrong-" + UUID.randomUUID();
        try (Connection admin = DriverManager.getConnection(RealServices.MARIADB_URL, RealServices.MARIADB_USER, "");
             Statement st = admin.createStatement()) {
            st.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + right + "'");
            try {
                RefusedLoginTest.db(RealServices.MARIADB_URL, user, wrong).run(context -> {
                    assertThat(context).hasFailed();
                    CenterLoginRefusedException cause = StartupFailures.cause(context.getStartupFailure(),
                            CenterLoginRefusedException.class);
                    assertThat(cause.getMessage()).contains("refused the login of user '" + user + "' (using "
                            + "password: YES)", "Access denied for user '" + user + "'@", "(using password: YES)")
                            .doesNotContain("password: ***").doesNotContain(wrong).doesNotContain(right);
                    FailureAnalysis analysis = StartupFailures.analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("(using password: YES)").doesNotContain(wrong);
                });
            } finally {
                st.execute("DROP USER '" + user + "'@'%'");
            }
        }
    }

    @Test
    void postgreSqlRefusesARoleThatDoesNotExist() {
        String role = "idw_" + UUID.randomUUID().toString().substring(0, 8);
        RefusedLoginTest.db(RealServices.POSTGRES_URL, role, "any-" + UUID.randomUUID()).run(context -> {
            assertThat(context).hasFailed();
            CenterLoginRefusedException cause = StartupFailures.cause(context.getStartupFailure(),
                    CenterLoginRefusedException.class);
            assertThat(cause.getMessage()).contains("refused the login of user '" + role + "' (using password: YES)",
                    "role \"" + role + "\" does not exist").doesNotContain("Cannot reach");
            assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                    .startsWith("The database answered and refused the login");
        });
    }
}
