package io.github.idworker.benchmarks;

import io.github.idworker.snowflake.SnowflakeLayout;

/**
 * The bit layouts the benchmarks use: the default one, whose sequence caps a worker at 4,096 identifiers per
 * millisecond, and one with so many sequence bits that the cap is never reached, so a measurement shows the CPU
 * cost of an identifier instead of the wait for the next millisecond.
 */
public enum BenchmarkLayout {

    /** 41 timestamp, 10 worker, 12 sequence bits: at most 4,096 ids per millisecond, 4.096 M ids/s. */
    DEFAULT(SnowflakeLayout.DEFAULT_TIMESTAMP_BITS, SnowflakeLayout.DEFAULT_WORKER_BITS,
            SnowflakeLayout.DEFAULT_SEQUENCE_BITS),

    /** 41 timestamp, 2 worker, 20 sequence bits: 1,048,576 ids per millisecond, about 1 G ids/s. */
    WIDE_SEQUENCE(41, 2, 20);

    private final int timestampBits;
    private final int workerBits;
    private final int sequenceBits;

    BenchmarkLayout(int timestampBits, int workerBits, int sequenceBits) {
        this.timestampBits = timestampBits;
        this.workerBits = workerBits;
        this.sequenceBits = sequenceBits;
    }

    SnowflakeLayout layout() {
        return SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, timestampBits, workerBits, sequenceBits);
    }

    int timestampBits() {
        return timestampBits;
    }

    int workerBits() {
        return workerBits;
    }

    int sequenceBits() {
        return sequenceBits;
    }
}
