package io.github.idworker.snowflake;

import io.github.idworker.IdWorkerConfigurationException;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The bit layout of a 64-bit snowflake identifier: a zero sign bit, then milliseconds since {@link #epoch()},
 * then the worker id, then a per-millisecond sequence.
 *
 * <p>A layout that exists has been validated: its widths fit in 63 bits, its epoch is not in the future and
 * its timestamp field lasts at least {@value #MIN_YEARS_LEFT} more years. Identifiers composed with it are
 * positive and order by time first.
 */
public final class SnowflakeLayout {

    /** Default epoch: 2025-01-01T00:00:00Z. */
    public static final Instant DEFAULT_EPOCH = Instant.parse("2025-01-01T00:00:00Z");
    public static final int DEFAULT_TIMESTAMP_BITS = 41;
    public static final int DEFAULT_WORKER_BITS = 10;
    public static final int DEFAULT_SEQUENCE_BITS = 12;
    static final int MIN_YEARS_LEFT = 10;

    private final Instant epoch;
    private final long epochMillis;
    private final int timestampBits;
    private final int workerBits;
    private final int sequenceBits;

    private SnowflakeLayout(Instant epoch, int timestampBits, int workerBits, int sequenceBits, Instant now) {
        check(timestampBits >= 1, "idworker.snowflake.timestamp-bits", "must be at least 1, was " + timestampBits);
        check(workerBits >= 0, "idworker.snowflake.worker-bits", "must be 0 or more, was " + workerBits);
        check(workerBits <= 20, "idworker.snowflake.worker-bits",
                "must be at most 20 (a centre keeps one record per worker id), was " + workerBits);
        check(sequenceBits >= 1, "idworker.snowflake.sequence-bits", "must be at least 1, was " + sequenceBits);
        int total = timestampBits + workerBits + sequenceBits;
        check(total <= 63, "idworker.snowflake.timestamp-bits",
                "timestamp-bits + worker-bits + sequence-bits must be at most 63 (the sign bit stays 0), was "
                        + timestampBits + " + " + workerBits + " + " + sequenceBits + " = " + total);
        check(epoch != null, "idworker.snowflake.epoch", "must be set");
        check(!epoch.isAfter(now), "idworker.snowflake.epoch", "must not be in the future, was " + epoch);
        this.epoch = epoch;
        this.epochMillis = epoch.toEpochMilli();
        this.timestampBits = timestampBits;
        this.workerBits = workerBits;
        this.sequenceBits = sequenceBits;
        Instant endOfLife = endOfLife();
        check(!endOfLife.isBefore(now.atZone(java.time.ZoneOffset.UTC).plusYears(MIN_YEARS_LEFT).toInstant()),
                "idworker.snowflake.timestamp-bits",
                timestampBits + " timestamp bits from epoch " + epoch + " run out at " + endOfLife
                        + ", less than " + MIN_YEARS_LEFT + " years from now; use more timestamp bits or a later epoch");
    }

    /** Validates and returns a layout, judged against the current time. */
    public static SnowflakeLayout of(Instant epoch, int timestampBits, int workerBits, int sequenceBits) {
        return new SnowflakeLayout(epoch, timestampBits, workerBits, sequenceBits, Instant.now());
    }

    /** Validates and returns a layout, judged against {@code now}. */
    public static SnowflakeLayout of(Instant epoch, int timestampBits, int workerBits, int sequenceBits, Instant now) {
        return new SnowflakeLayout(epoch, timestampBits, workerBits, sequenceBits, now);
    }

    /** 41 timestamp bits from 2025-01-01, 10 worker bits, 12 sequence bits. */
    public static SnowflakeLayout defaults() {
        return of(DEFAULT_EPOCH, DEFAULT_TIMESTAMP_BITS, DEFAULT_WORKER_BITS, DEFAULT_SEQUENCE_BITS);
    }

    private static void check(boolean ok, String property, String message) {
        if (!ok) {
            throw new IdWorkerConfigurationException(property, message);
        }
    }

    public Instant epoch() {
        return epoch;
    }

    public long epochMillis() {
        return epochMillis;
    }

    public int timestampBits() {
        return timestampBits;
    }

    public int workerBits() {
        return workerBits;
    }

    public int sequenceBits() {
        return sequenceBits;
    }

    /** How many worker ids (slots) the layout has: {@code 2^workerBits}. */
    public int workerCapacity() {
        return 1 << workerBits;
    }

    /** The largest sequence number within one millisecond. */
    public long maxSequence() {
        return (1L << sequenceBits) - 1;
    }

    /** The largest timestamp offset, in milliseconds since the epoch. */
    public long maxTimestampOffset() {
        return (1L << timestampBits) - 1;
    }

    /** The last instant this layout can encode. */
    public Instant endOfLife() {
        return epoch.plus(maxTimestampOffset(), ChronoUnit.MILLIS);
    }

    /** How long the timestamp field lasts from the epoch. */
    public Duration lifetime() {
        return Duration.ofMillis(maxTimestampOffset());
    }

    /**
     * Composes an identifier.
     *
     * @throws IllegalArgumentException when a part does not fit its field
     */
    public long compose(long unixMillis, long workerId, long sequence) {
        long offset = unixMillis - epochMillis;
        if (offset < 0 || offset > maxTimestampOffset()) {
            throw new IllegalArgumentException("timestamp " + Instant.ofEpochMilli(unixMillis)
                    + " is outside this layout's range " + epoch + " .. " + endOfLife());
        }
        if (workerId < 0 || workerId >= workerCapacity()) {
            throw new IllegalArgumentException("workerId must be 0.." + (workerCapacity() - 1) + ", was " + workerId);
        }
        if (sequence < 0 || sequence > maxSequence()) {
            throw new IllegalArgumentException("sequence must be 0.." + maxSequence() + ", was " + sequence);
        }
        return (offset << (workerBits + sequenceBits)) | (workerId << sequenceBits) | sequence;
    }

    /**
     * Splits an identifier into its timestamp, worker id and sequence.
     *
     * @throws IllegalArgumentException when {@code id} is negative
     */
    public DecodedId decode(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("id must not be negative, was " + id);
        }
        long sequence = id & maxSequence();
        long workerId = (id >>> sequenceBits) & (workerCapacity() - 1L);
        long offset = id >>> (sequenceBits + workerBits);
        return new DecodedId(id, Instant.ofEpochMilli(epochMillis + offset), workerId, sequence);
    }

    /**
     * The canonical form a centre pins for a namespace, e.g.
     * {@code epoch=2025-01-01T00:00:00Z;timestamp-bits=41;worker-bits=10;sequence-bits=12}. Two layouts encode
     * identifiers alike exactly when their pinned forms are equal.
     */
    public String pinned() {
        return "epoch=" + epoch + ";timestamp-bits=" + timestampBits + ";worker-bits=" + workerBits
                + ";sequence-bits=" + sequenceBits;
    }

    @Override
    public String toString() {
        return "SnowflakeLayout[epoch=" + epoch + ", timestampBits=" + timestampBits + ", workerBits=" + workerBits
                + ", sequenceBits=" + sequenceBits + ", endOfLife=" + endOfLife() + "]";
    }
}
