package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.WorkerIdExhaustedException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

class IdWorkerFailureAnalyzerTest {

    private final IdWorkerFailureAnalyzer analyzer = new IdWorkerFailureAnalyzer();

    @Test
    void isRegisteredWithSpringBoot() {
        // Boot's own analyzers need constructor arguments this plain load does not supply: skip them
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { })))
                .hasAtLeastOneElementOfType(IdWorkerFailureAnalyzer.class);
    }

    @Test
    void namesTheBeanThePropertyAndWhatToChange() {
        Throwable failure = new BeanCreationException("dbIdWorker", "Failed to instantiate",
                new IdWorkerConfigurationException("idworker.snowflake.worker-bits", "must be at most 20, was 30"));
        FailureAnalysis analysis = analyzer.analyze(failure);
        assertThat(analysis.getDescription()).contains("'dbIdWorker'")
                .contains("idworker.snowflake.worker-bits: must be at most 20, was 30");
        assertThat(analysis.getAction()).contains("idworker.snowflake.worker-bits");
        assertThat(analysis.getCause()).isInstanceOf(IdWorkerConfigurationException.class);
    }

    @Test
    void tellsHowToCreateAMissingSegmentTable() {
        FailureAnalysis analysis = analyzer.analyze(new BeanCreationException("segmentAllocator", "init failed",
                new IdWorkerConfigurationException("idworker.segment.initialize-schema", "table 'idworker_segment' is missing")));
        assertThat(analysis.getDescription()).contains("'segmentAllocator'").contains("idworker_segment");
        assertThat(analysis.getAction()).contains("segment table").contains("idworker.segment.initialize-schema=always");
    }

    @Test
    void tellsHowToReachAnUnavailableCentre() {
        FailureAnalysis analysis = analyzer.analyze(new BeanCreationException("redisIdWorker", "init failed",
                new CenterUnavailableException("Cannot reach Redis at 127.0.0.1:1", null)));
        assertThat(analysis.getDescription()).contains("127.0.0.1:1");
        assertThat(analysis.getAction()).contains("spring.data.redis.*").contains("spring.datasource.*");
    }

    @Test
    void tellsWhatToDoWhenWorkerIdsRunOut() {
        FailureAnalysis analysis = analyzer.analyze(new WorkerIdExhaustedException("orders", 1024));
        assertThat(analysis.getDescription()).contains("orders").contains("1024");
        assertThat(analysis.getAction()).contains("idworker.namespace").contains("idworker.snowflake.worker-bits");
    }

    @Test
    void tellsWhatToDoWhenTheClockIsAheadOfTheCentre() {
        FailureAnalysis analysis = analyzer.analyze(new BeanCreationException("dbIdWorker", "init failed",
                new ClockAheadOfCentreException("orders", "borrow of a worker id", 1_700_000_015_000L,
                        1_700_000_000_000L, 1_000)));
        assertThat(analysis.getDescription()).contains("'dbIdWorker'").contains("orders")
                .contains("2023-11-14T22:13:35Z").contains("2023-11-14T22:13:20Z").contains("15000 ms ahead")
                .contains("idworker.lease.max-skew (1000 ms)");
        assertThat(analysis.getAction()).contains("NTP").contains("idworker.lease.max-skew");
    }

    @Test
    void leavesOtherFailuresAlone() {
        assertThat(analyzer.analyze(new IllegalStateException("not ours"))).isNull();
    }
}
