package io.github.idworker.snowflake;

import io.github.idworker.IdWorkerConfigurationException;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnowflakeLayoutTest {

    private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

    @Test
    void defaultLayoutLastsUntil2094() {
        SnowflakeLayout layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 10, 12, NOW);
        assertThat(layout.workerCapacity()).isEqualTo(1024);
        assertThat(layout.maxSequence()).isEqualTo(4095);
        assertThat(layout.endOfLife()).isEqualTo(Instant.parse("2094-09-07T15:47:35.551Z"));
    }

    @Test
    void composeAndDecodeRoundTrip() {
        SnowflakeLayout layout = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 10, 12, NOW);
        long ts = NOW.toEpochMilli() + 123;
        long id = layout.compose(ts, 1023, 4095);
        assertThat(id).isPositive();
        DecodedId d = layout.decode(id);
        assertThat(d.timestamp().toEpochMilli()).isEqualTo(ts);
        assertThat(d.workerId()).isEqualTo(1023);
        assertThat(d.sequence()).isEqualTo(4095);
        assertThatThrownBy(() -> layout.compose(ts, 1024, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> layout.decode(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsLayoutsWiderThan63Bits() {
        assertThatThrownBy(() -> SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 42, 10, 12, NOW))
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageContaining("idworker.snowflake.timestamp-bits")
                .hasMessageContaining("at most 63");
    }

    @Test
    void rejectsAnEpochInTheFuture() {
        assertThatThrownBy(() -> SnowflakeLayout.of(NOW.plusSeconds(60), 41, 10, 12, NOW))
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageContaining("idworker.snowflake.epoch");
    }

    @Test
    void rejectsFewerThanTenYearsOfTimestampsLeft() {
        // 38 bits last about 8.7 years from the epoch
        assertThatThrownBy(() -> SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 38, 10, 12, NOW))
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageContaining("idworker.snowflake.timestamp-bits")
                .hasMessageContaining("10 years");
    }

    @Test
    void rejectsTooManyWorkerBits() {
        assertThatThrownBy(() -> SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 21, 1, NOW))
                .isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageContaining("idworker.snowflake.worker-bits");
    }
}
