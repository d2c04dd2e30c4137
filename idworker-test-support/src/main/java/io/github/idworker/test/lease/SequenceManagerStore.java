package io.github.idworker.test.lease;

import io.github.idworker.lease.ISequenceManager;
/**
 * One centre under test, seen by the contract kit: how to make managers over it and how to look into it.
 * Implementations talk to a real store; none of these hooks may fake the centre's behaviour.
 */
public interface SequenceManagerStore extends AutoCloseable {

    /** A new, independent manager over the same store, as another process would create it. */
    ISequenceManager newManager();

    /** Makes the lease on {@code workerId} expired in the centre's own time, as if its ttl had passed. */
    void expireLease(String namespace, int workerId);

    /** The high-water the centre stores for {@code workerId}, or {@code -1} when it keeps no record. */
    long storedHighWater(String namespace, int workerId);

    /** The owner token the centre stores for {@code workerId}, or {@code null} when the slot is free. */
    String storedOwner(String namespace, int workerId);

    /**
     * Removes the record of one slot and nothing else, as an evicted key or a row deleted by hand would: the
     * namespace's other records (and its generation marker, where the centre keeps one) survive.
     */
    void deleteSlotRecord(String namespace, int workerId);

    /**
     * Makes every centre call that touches {@code workerId} of {@code namespace} hang until the returned handle
     * is closed, as a row locked by another session or a stalled store would; the store's own timeouts still
     * apply. Closing the handle releases the stall.
     */
    AutoCloseable stall(String namespace, int workerId) throws Exception;

    /** Removes every record of {@code namespace}, so nothing is left for another test to trip on. */
    void deleteNamespace(String namespace);

    @Override
    default void close() throws Exception {
    }
}
