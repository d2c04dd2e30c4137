package io.github.idworker.snowflake;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.LeaseRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ordinal of a StatefulSet pod's host name, and the checks of a preferred worker id against the layout. */
class WorkerIdPreferenceTest {

    @ParameterizedTest
    @CsvSource({
            "orders-0, 0",
            "orders-3, 3",
            "orders-1023, 1023",
            "order-service-v2-17, 17",
            "orders-3.orders.shop.svc.cluster.local, 3",
            "' orders-5 ', 5"})
    void theOrdinalIsTheNumberAfterTheLastDashOfTheFirstLabel(String hostName, int ordinal) {
        assertThat(WorkerIdPreference.ordinalOf(hostName)).isEqualTo(ordinal);
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", "orders-", "-3", "orders-03", "orders-3a", "orders-x", "orders-1234567890",
            "orders.3", "localhost", "", "10.0.0.7"})
    void aHostNameWithoutAnOrdinalIsRefusedNamingItAndTheFormExpected(String hostName) {
        assertThatThrownBy(() -> WorkerIdPreference.ordinalOf(hostName))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo("idworker.worker-id.source"))
                .hasMessageContaining("the host name is '" + hostName.strip() + "'")
                .hasMessageContaining("<statefulset name>-<ordinal>, such as 'orders-3'");
    }

    @Test
    void thePreferredIdMustLieInsideTheLayoutNamingThePropertyAndTheRange() {
        SnowflakeLayout eightBits = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 43, 8, 12);
        for (int id : new int[] {-1, 256}) {
            assertThatThrownBy(() -> WorkerOptions.builder().layout(eightBits)
                    .preferredWorkerId(WorkerIdPreference.fixed(id, WhenTaken.FAIL)).build())
                    .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                            e -> assertThat(e.getProperty()).isEqualTo("idworker.worker-id.preferred"))
                    .hasMessageContaining("gives worker id " + id)
                    .hasMessageContaining("allowed are 0 to 255 (idworker.snowflake.worker-bits = 8 gives 256");
        }
        assertThatThrownBy(() -> WorkerOptions.builder().layout(eightBits)
                .preferredWorkerId(WorkerIdPreference.statefulSetOrdinal("orders-300", WhenTaken.ANY)).build())
                .hasMessageStartingWith("idworker.worker-id.source: ")
                .hasMessageContaining("the ordinal of host name 'orders-300'");
        WorkerOptions ok = WorkerOptions.builder().layout(eightBits)
                .preferredWorkerId(WorkerIdPreference.statefulSetOrdinal("orders-255", WhenTaken.ANY)).build();
        assertThat(ok.preferredWorkerId()).isNotNull();
        assertThat(ok.preferredWorkerId().workerId()).isEqualTo(255);
        assertThat(ok.preferredWorkerId().whenTaken()).isEqualTo(WhenTaken.ANY);
    }

    @Test
    void aPreferredIdAbove1023IsRefusedEvenWhereTheLayoutHasIt() {
        SnowflakeLayout twelveBits = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 12, 10);
        assertThatThrownBy(() -> WorkerOptions.builder().layout(twelveBits)
                .preferredWorkerId(WorkerIdPreference.statefulSetOrdinal("orders-1024", WhenTaken.FAIL)).build())
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo("idworker.worker-id.source"))
                .hasMessageContaining("gives worker id 1024")
                .hasMessageContaining("above the highest preferred worker id, 1023");
        assertThat(WorkerOptions.builder().layout(twelveBits)
                .preferredWorkerId(WorkerIdPreference.fixed(1023, WhenTaken.FAIL)).build().preferredWorkerId())
                .isNotNull();
        LeaseRequest wide = new LeaseRequest("ns", 4096, "owner", Duration.ofSeconds(1), 0, Duration.ZERO, "h", 1, "l");
        assertThat(wide.withPreferredSlot(1023).preferredSlot()).isEqualTo(1023);
        assertThatThrownBy(() -> wide.withPreferredSlot(1024)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("preferredSlot must be -1 (any) or 0 to 1023, was 1024");
    }

    @Test
    void aLeaseRequestPrefersOnlyASlotItHas() {
        LeaseRequest any = new LeaseRequest("ns", 4, "owner", Duration.ofSeconds(1), 0, Duration.ZERO, "h", 1, "l");
        assertThat(any.hasPreferredSlot()).isFalse();
        assertThat(any.preferredSlot()).isEqualTo(LeaseRequest.ANY_SLOT);
        assertThat(any.withPreferredSlot(3).preferredSlot()).isEqualTo(3);
        assertThat(any.withPreferredSlot(3).hasPreferredSlot()).isTrue();
        assertThat(any.withPreferredSlot(3).withPreferredSlot(LeaseRequest.ANY_SLOT)).isEqualTo(any);
        for (int slot : new int[] {-2, 4}) {
            assertThatThrownBy(() -> any.withPreferredSlot(slot)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("preferredSlot must be -1 (any) or 0 to 3, was " + slot);
        }
    }
}
