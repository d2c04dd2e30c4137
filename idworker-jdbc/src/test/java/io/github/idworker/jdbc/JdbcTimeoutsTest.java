package io.github.idworker.jdbc;

import io.github.idworker.IdWorkerConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JdbcTimeoutsTest {

    @Test
    void defaultsAreTwoAndFiveSeconds() {
        JdbcTimeouts defaults = JdbcTimeouts.defaults();
        assertThat(defaults.statementSeconds()).isEqualTo(2);
        assertThat(defaults.networkMillis()).isEqualTo(5_000);
    }

    @ParameterizedTest(name = "statement {0}, network {1}")
    @CsvSource(nullValues = "null", textBlock = """
            PT0S,   PT5S,  idworker.jdbc.statement-timeout
            PT0.5S, PT5S,  idworker.jdbc.statement-timeout
            PT1.5S, PT5S,  idworker.jdbc.statement-timeout
            PT-1S,  PT5S,  idworker.jdbc.statement-timeout
            null,   PT5S,  idworker.jdbc.statement-timeout
            PT2S,   PT2S,  idworker.jdbc.network-timeout
            PT2S,   PT1S,  idworker.jdbc.network-timeout
            PT2S,   null,  idworker.jdbc.network-timeout
            PT2S,   PT720H, idworker.jdbc.network-timeout
            """)
    void badTimeoutsAreRefusedNamingTheProperty(Duration statement, Duration network, String property) {
        assertThatThrownBy(() -> new JdbcTimeouts(statement, network))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(property))
                .hasMessageContaining(property);
    }

    @Test
    void wholeSecondsAndALongerNetworkTimeoutAreAccepted() {
        JdbcTimeouts t = new JdbcTimeouts(Duration.ofSeconds(1), Duration.ofMillis(1_500));
        assertThat(t.statementSeconds()).isEqualTo(1);
        assertThat(t.networkMillis()).isEqualTo(1_500);
    }
}
