package io.github.idworker.test.lease;

import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import java.time.Duration;
import java.util.UUID;

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

    /**
     * The centre's clock now, in epoch milliseconds, read from the store itself (Redis {@code TIME}, the database's
     * clock, the modification time of a ZooKeeper write): kit workers set their clocks from it, never from this
     * JVM's, so the kit holds wherever the store runs.
     */
    long centreNowMillis();

    /**
     * Makes the new namespace {@code namespace} one that has been in use for a while: its first borrows find its
     * creation more than {@code ttl + maxSkew} (plus {@link #AGED_MARGIN}) in the past by the centre's clock, so they
     * need not wait for holders of an incarnation the centre may have lost. Kit tests about other rules start from
     * such a namespace with a worker clock set to the centre's, instead of running the worker ahead of the centre
     * (which a centre refuses, DESIGN rule 13). The first wait itself is tested with new namespaces.
     *
     * <p>The default does it honestly through the centre's API: it borrows a slot with that ttl and max-skew,
     * returns it at its floor and waits, by the centre's clock, until the floor is {@link #AGED_MARGIN} behind. A
     * store that can write the namespace's record dated back (a database row's creation time, a Redis generation
     * marker) overrides it to save the wait; it must write only what the centre itself would have written then.
     */
    default void createAgedNamespace(String namespace, int slotCount, String layout, Duration ttl, Duration maxSkew) {
        ISequenceManager m = newManager();
        WorkerLease lease = m.borrow(new LeaseRequest(namespace, slotCount, UUID.randomUUID().toString(), ttl,
                centreNowMillis(), maxSkew, "kit-setup", 0, layout));
        m.giveBack(lease, lease.floorMillis());
        long until = lease.floorMillis() + AGED_MARGIN.toMillis();
        long now;
        while ((now = centreNowMillis()) <= until) {
            try {
                Thread.sleep(Math.max(1, Math.min(100, until - now + 1)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while ageing namespace " + namespace, e);
            }
        }
    }

    /**
     * How far behind the centre's clock an aged namespace's floors lie at least: kit workers step their clocks back
     * by less than this and still find slots whose floor they have passed.
     */
    Duration AGED_MARGIN = Duration.ofMillis(1_000);

    /** Removes every record of {@code namespace}, so nothing is left for another test to trip on. */
    void deleteNamespace(String namespace);

    @Override
    default void close() throws Exception {
    }
}
