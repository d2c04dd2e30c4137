package io.github.idworker.test.serial;

import io.github.idworker.serial.SerialStore;

/**
 * One serial store under test, seen by {@link AbstractSerialStoreContractTest}: how to make store instances over
 * it and how to clean up after a test. Implementations talk to a real store; none of these hooks may fake its
 * behaviour.
 */
public interface SerialStoreStore extends AutoCloseable {

    /** A new, independent store instance over the same backing store, as another process would create it. */
    SerialStore newStore();

    /** Removes the rule {@code rule} and every period of it, so nothing is left for another test to trip on. */
    void deleteRule(String rule);

    /**
     * Deletes the rule's own record only, keeping the high-waters of its periods, as a lost row or an operator's
     * mistake would.
     */
    void deleteRuleRecordOnly(String rule);

    /**
     * Sets the stored high-water of (rule, period) the way an operator editing the store by hand would: that one
     * value and nothing else, whatever the store keeps beside it (for a table: {@code UPDATE ... SET high_water = ?
     * WHERE rule_name = ? AND period = ?}). The kit lowers it to move the period back, and raises it again as the
     * operator's recovery.
     */
    void editHighWater(String rule, String period, long highWater);

    /** Sets the rule's {@code start} and {@code max} in the backing store, as an operator tuning the rule would. */
    void setLimits(String rule, long start, long max);

    @Override
    default void close() throws Exception {
    }
}
