package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.snowflake.BackwardsPolicy;
import io.github.idworker.snowflake.SnowflakeLayout;

import java.time.Duration;
import java.time.Instant;

/**
 * Bit layout of the ids and how the worker treats its clock.
 * Bound to {@code idworker.snowflake.*}.
 */
public class SnowflakeProperties {

    /**
     * Instant timestamp zero stands for, as an ISO-8601 instant; 2025-01-01T00:00:00Z by default. Must not
     * be in the future; changing it on a running system can reissue ids.
     */
    private Instant epoch = SnowflakeLayout.DEFAULT_EPOCH;

    /**
     * Number of bits holding milliseconds since the epoch; together with the epoch it decides when the
     * layout runs out of time.
     */
    private int timestampBits = 41;

    /**
     * Number of bits holding the worker id; 2^worker-bits workers may run at once in a namespace.
     */
    private int workerBits = 10;

    /**
     * Number of bits holding the sequence within one millisecond; 2^sequence-bits ids per millisecond
     * per worker.
     */
    private int sequenceBits = 12;

    /**
     * Largest backward step of the clock the worker waits out; a larger step moves it to another worker
     * id or fails, as "on-large-backward-step" says.
     */
    private Duration maxBackward = Duration.ofMillis(10);

    /**
     * What the worker does when the clock steps back further than "max-backward".
     */
    private BackwardsPolicy onLargeBackwardStep = BackwardsPolicy.SWITCH_WORKER;

    /**
     * Clock the worker reads: only "system", read on every id. Kept so that configurations setting it still
     * bind; the cached "ticking" clock was removed because it cannot beat the system clock at a worker's cap
     * of 2^sequence-bits ids per millisecond, and setting it now fails the startup.
     */
    private Clock clock = Clock.SYSTEM;

    public Instant getEpoch() {
        return this.epoch;
    }

    public void setEpoch(Instant epoch) {
        this.epoch = epoch;
    }

    public int getTimestampBits() {
        return this.timestampBits;
    }

    public void setTimestampBits(int timestampBits) {
        this.timestampBits = timestampBits;
    }

    public int getWorkerBits() {
        return this.workerBits;
    }

    public void setWorkerBits(int workerBits) {
        this.workerBits = workerBits;
    }

    public int getSequenceBits() {
        return this.sequenceBits;
    }

    public void setSequenceBits(int sequenceBits) {
        this.sequenceBits = sequenceBits;
    }

    public Duration getMaxBackward() {
        return this.maxBackward;
    }

    public void setMaxBackward(Duration maxBackward) {
        this.maxBackward = maxBackward;
    }

    public BackwardsPolicy getOnLargeBackwardStep() {
        return this.onLargeBackwardStep;
    }

    public void setOnLargeBackwardStep(BackwardsPolicy onLargeBackwardStep) {
        this.onLargeBackwardStep = onLargeBackwardStep;
    }

    public Clock getClock() {
        return this.clock;
    }

    public void setClock(Clock clock) {
        this.clock = clock;
    }

    /**
     * Clock a worker reads. One value only, kept for configuration compatibility: a value that is not listed
     * (such as the removed {@code ticking}) fails the binding of {@code idworker.snowflake.clock} at startup, and
     * Spring Boot's report names the property and lists the valid values.
     */
    public enum Clock {

        /** System clock, {@link System#currentTimeMillis()}, read on every id. */
        SYSTEM
    }
}
