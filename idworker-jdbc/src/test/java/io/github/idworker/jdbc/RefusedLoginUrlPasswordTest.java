package io.github.idworker.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.CenterLoginRefusedException;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A wrong password given in the JDBC URL, with none on the data source, is reported as sent
 * ({@code using password: YES}), as the database itself says, and is shown nowhere. H2 keeps the first user and
 * password of an in-memory database and refuses others (SQLSTATE 28000).
 */
class RefusedLoginUrlPasswordTest {

    @Test
    void aWrongPasswordInTheUrlIsReportedAsSentAndNeverShown() throws Exception {
        String url = "jdbc:h2:mem:refused-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=0";
        String right = "right-" + UUID.randomUUID();
        String wrong = "wrong-" + UUID.randomUUID();
        // the first connection creates the database with this user and password; it stays open for the test
        try (Connection owner = DriverManager.getConnection(url, "app", right);
             HikariDataSource dataSource = new HikariDataSource()) {
            dataSource.setJdbcUrl(url + ";USER=app;PASSWORD=" + wrong);
            dataSource.setConnectionTimeout(2000);
            JdbcRunner runner = new JdbcRunner(dataSource, "idworker_worker_slot", JdbcTimeouts.defaults());
            CenterLoginRefusedException e = catchThrowableOfType(CenterLoginRefusedException.class, runner::dialect);
            assertThat(e.getMessage()).contains("refused the login of the configured user (using password: YES)")
                    .contains("PASSWORD=***").doesNotContain(wrong).doesNotContain(right);
            assertThat(owner.isValid(1)).isTrue();
        }
    }
}
