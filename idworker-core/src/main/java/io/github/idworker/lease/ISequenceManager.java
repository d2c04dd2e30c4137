package io.github.idworker.lease;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;

/**
 * Leases worker ids (slots {@code 0 .. slotCount-1}) of a namespace to workers: the SPI behind every
 * snowflake worker. A centre implementing it guarantees, for each namespace and slot:
 *
 * <ol>
 *   <li><b>Exclusive borrow.</b> {@link #borrow} claims, in one atomic step judged by the centre's own clock,
 *       a slot that is free or whose lease expired. Never a counter taken modulo the slot count.</li>
 *   <li><b>Stored high-water.</b> The centre stores a high-water timestamp per slot. Every lease it hands out
 *       carries the slot's high-water at the moment of the claim as {@link WorkerLease#floorMillis()}; the new
 *       holder issues only timestamps above it. The claim stores the holder's first high-water in the same
 *       atomic step.</li>
 *   <li><b>Owner-checked renew.</b> {@link #renew} writes a higher high-water and extends the lease only while
 *       the slot is still owned by the lease's owner token; otherwise it throws {@link LeaseLostException} and
 *       changes nothing.</li>
 *   <li><b>Owner-checked return.</b> {@link #giveBack} frees the slot and stores the holder's last issued
 *       timestamp as its high-water, only while the holder still owns it.</li>
 *   <li><b>No wait when avoidable.</b> Among claimable slots, prefer those whose high-water is already in the
 *       past.</li>
 *   <li><b>Pinned layout.</b> The first borrow of a namespace stores {@link LeaseRequest#layout()} with it; a
 *       later borrow with another layout throws {@link io.github.idworker.LayoutMismatchException} and claims
 *       nothing.</li>
 *   <li><b>Loss guard never lowered.</b> The centre keeps the largest {@link LeaseRequest#lossGuard()} of a
 *       namespace with it and uses it for every floor after a loss; while it keeps it, a borrow with a smaller one
 *       throws {@link io.github.idworker.LossGuardLoweredException} ({@link LeaseRequest#refuseIfBelow}) and
 *       claims nothing.</li>
 *   <li><b>Loss detected per record.</b> A slot whose record is missing although the namespace existed before
 *       (an evicted key, a deleted row) is treated as lost data: its floor is at least the centre's clock +
 *       {@link LeaseRequest#lossGuardMillis()}. A generation marker lives in the same key or row as the data it
 *       protects.</li>
 *   <li><b>Bounded calls, any isolation.</b> Every call returns or fails within the centre's configured
 *       timeouts, and behaves the same whatever isolation level the connection pool uses.</li>
 * </ol>
 *
 * Together these give the timestamp fence: a holder issues timestamps only up to a high-water it stored
 * successfully, and a successor issues only above the stored value, so two holders of one slot never issue
 * the same identifier, whatever their clocks, pauses or partitions do.
 *
 * <p>Write a new centre by extending {@code AbstractSequenceManagerContractTest} from idworker-test-support.
 */
public interface ISequenceManager {

    /**
     * Claims one free or expired slot; with {@link LeaseRequest#hasPreferredSlot()}, exactly the preferred one
     * (still free or expired, in the same one atomic step and with the same floor as any borrow of it). A slot
     * above those the namespace has used is claimed as a fresh one, and the unused ones below it stay claimable
     * as fresh ones too, never taken for lost.
     *
     * @throws io.github.idworker.WorkerIdTakenException when the preferred slot is held by a live lease of
     *         another owner; nothing was claimed
     * @throws WorkerIdExhaustedException when every slot is held by a live lease
     * @throws io.github.idworker.LayoutMismatchException when the namespace is pinned to another layout
     * @throws CenterUnavailableException when the centre cannot be reached; nothing was claimed that the
     *         caller will be told about, and an unconfirmed claim expires with its ttl
     */
    WorkerLease borrow(LeaseRequest request);

    /**
     * Extends a lease and raises its high-water to {@code highWaterMillis} (never lowers it).
     *
     * @return the renewed lease, whose {@link WorkerLease#highWaterMillis()} the holder may issue up to
     * @throws LeaseLostException when the slot is no longer owned by {@code lease.owner()}
     * @throws CenterUnavailableException when the centre cannot be reached; the holder keeps its old high-water
     */
    WorkerLease renew(WorkerLease lease, long highWaterMillis);

    /**
     * Frees the slot and stores {@code lastIssuedMillis} as its high-water. The holder issues nothing after
     * calling it. A lease already lost is left as it is.
     *
     * @throws CenterUnavailableException when the centre cannot be reached; the lease then simply expires
     */
    void giveBack(WorkerLease lease, long lastIssuedMillis);
}
