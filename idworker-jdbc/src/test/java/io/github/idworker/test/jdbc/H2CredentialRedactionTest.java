package io.github.idworker.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.segment.UnknownSegmentTagException;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.snowflake.SnowflakeLayout;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A password in the JDBC URL never reaches an exception message: the URL is named with its secrets replaced by
 * {@code ***}. {@link UnknownSegmentTagException} in particular may travel to an HTTP client.
 */
class H2CredentialRedactionTest {

    private static final String SECRET = "Sup3rS3cret";

    private static HikariDataSource dataSource(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("sa");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    @Test
    void anUnknownSegmentTagNamesTheDatabaseWithoutItsPassword() {
        try (HikariDataSource ds = dataSource("jdbc:h2:mem:redaction-segment;DB_CLOSE_DELAY=-1;PASSWORD=" + SECRET)) {
            JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(ds, "redaction_segment", false);
            allocator.createSchemaIfMissing();
            assertThatThrownBy(() -> allocator.allocate("order", 10))
                    .isInstanceOf(UnknownSegmentTagException.class)
                    .hasMessageContaining("jdbc:h2:mem:redaction-segment")
                    .hasMessageContaining("PASSWORD=***")
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void aMissingTableNamesTheDatabaseWithoutItsPassword() {
        try (HikariDataSource ds = dataSource("jdbc:h2:mem:redaction-schema;password=" + SECRET + ";DB_CLOSE_DELAY=-1")) {
            assertThatThrownBy(() -> new JdbcSequenceManager(ds, "no_such_table").verifySchema())
                    .isInstanceOf(IdWorkerConfigurationException.class)
                    .hasMessageContaining("jdbc:h2:mem:redaction-schema")
                    .hasMessageNotContaining(SECRET);
            assertThatThrownBy(() -> new JdbcSegmentAllocator(ds, "no_such_table", false).verifySchema())
                    .isInstanceOf(IdWorkerConfigurationException.class)
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void anUnreachableDatabaseIsNamedWithoutItsPassword() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (HikariDataSource ds = dataSource("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:gone;PASSWORD=" + SECRET)) {
            LeaseRequest request = new LeaseRequest("t-" + UUID.randomUUID(), 4, "owner", Duration.ofSeconds(15),
                    System.currentTimeMillis(), Duration.ofSeconds(1), "host", 1,
                    SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
            assertThatThrownBy(() -> new JdbcSequenceManager(ds).borrow(request))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageNotContaining(SECRET);
            assertThatThrownBy(() -> new JdbcSegmentAllocator(ds).allocate("order", 10))
                    .isInstanceOf(CenterUnavailableException.class)
                    .hasMessageNotContaining(SECRET);
        }
    }
}
