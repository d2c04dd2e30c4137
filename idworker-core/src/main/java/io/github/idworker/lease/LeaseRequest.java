package io.github.idworker.lease;

import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.LossGuardLoweredException;

import java.time.Duration;
import java.util.Objects;

/**
 * What a worker asks a centre for when it borrows a slot.
 *
 * @param namespace the id space; slots of different namespaces never interfere
 * @param slotCount how many slots the namespace has ({@code 2^workerBits})
 * @param owner a token unique to this lease attempt's process start (random, never host:pid)
 * @param ttl how long the lease lives in centre time unless renewed
 * @param workerNowMillis the borrowing worker's clock; the first high-water is derived from it
 * @param maxSkew the largest difference tolerated between worker and centre clocks
 * @param host the worker's host name, for humans
 * @param pid the worker's process id, for humans
 * @param layout the canonical form of the worker's identifier layout ({@code SnowflakeLayout#pinned()}); the
 *        centre stores it with the namespace at its first borrow and refuses a borrow whose layout differs
 * @param lossGuard how far above its clock a centre sets the floors of records it lost
 *        ({@code idworker.lease.loss-guard}); at least {@code ttl + maxSkew}, the most by which a high-water may
 *        exceed the centre's clock when it is stored (DESIGN rule 13). Fixed by configuration rather than derived
 *        from the ttl, so a worker with a short ttl that borrows first after a loss still sets floors above the
 *        high-waters of holders with a longer one. Centres store the largest one of a namespace and refuse a
 *        smaller one while they keep it ({@link #refuseIfBelow})
 * @param preferredSlot the one slot this borrow may claim ({@code idworker.worker-id.*}), or {@link #ANY_SLOT}: a
 *        centre then claims exactly that slot, free or expired, with every other rule of a borrow, or throws
 *        {@link io.github.idworker.WorkerIdTakenException} and claims nothing ({@link #withPreferredSlot})
 */
public record LeaseRequest(String namespace, int slotCount, String owner, Duration ttl, long workerNowMillis,
                           Duration maxSkew, String host, long pid, String layout, Duration lossGuard,
                           int preferredSlot) {

    /** {@link #preferredSlot()} of a borrow that may claim any slot. */
    public static final int ANY_SLOT = -1;

    /**
     * The highest slot a borrow may prefer. A centre claims a preferred slot above the ones a namespace has used
     * together with a free record for every unused slot below it, in one atomic step (one Lua call, one
     * transaction, one ZooKeeper multi): bounded, so that step stays small (a ZooKeeper multi of 2^20 records
     * would pass its 1 MB packet limit, a Lua call of that size would block Redis).
     */
    public static final int MAX_PREFERRED_SLOT = 1023;

    public LeaseRequest {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(maxSkew, "maxSkew");
        Objects.requireNonNull(layout, "layout");
        if (layout.isBlank() || layout.length() > 128) {
            throw new IllegalArgumentException("layout must be 1 to 128 characters, was '" + layout + "'");
        }
        if (namespace.isBlank()) {
            throw new IllegalArgumentException("namespace must not be blank");
        }
        if (slotCount < 1) {
            throw new IllegalArgumentException("slotCount must be at least 1, was " + slotCount);
        }
        if (ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
        }
        Objects.requireNonNull(lossGuard, "lossGuard");
        if (lossGuard.toMillis() < ttl.toMillis() + maxSkew.toMillis()) {
            throw new IllegalArgumentException("lossGuard must be at least ttl + maxSkew (" + ttl + " + " + maxSkew
                    + "), was " + lossGuard);
        }
        host = host == null ? "" : host;
        if (preferredSlot < ANY_SLOT || preferredSlot >= slotCount || preferredSlot > MAX_PREFERRED_SLOT) {
            throw new IllegalArgumentException("preferredSlot must be " + ANY_SLOT + " (any) or 0 to "
                    + (Math.min(slotCount - 1, MAX_PREFERRED_SLOT)) + ", was " + preferredSlot);
        }
    }

    /** A request for any free slot. */
    public LeaseRequest(String namespace, int slotCount, String owner, Duration ttl, long workerNowMillis,
                        Duration maxSkew, String host, long pid, String layout, Duration lossGuard) {
        this(namespace, slotCount, owner, ttl, workerNowMillis, maxSkew, host, pid, layout, lossGuard, ANY_SLOT);
    }

    /**
     * The same request, claiming only slot {@code slot} ({@link #ANY_SLOT}: any). A centre that cannot have it
     * because a live lease of another owner holds it throws {@link io.github.idworker.WorkerIdTakenException} and
     * claims nothing; the caller decides whether to borrow any slot instead. Its floor and first high-water follow
     * the same rules as any borrow's, so a slot whose stored high-water lies ahead of the clock is waited for.
     */
    public LeaseRequest withPreferredSlot(int slot) {
        return new LeaseRequest(namespace, slotCount, owner, ttl, workerNowMillis, maxSkew, host, pid, layout,
                lossGuard, slot);
    }

    /**
     * The same request under another owner token, read at another moment of the worker's clock: for an attempt that
     * repeats a borrow whose answer did not arrive (a new token, so a late claim of the earlier attempt is never
     * taken for this one's).
     */
    public LeaseRequest withAttempt(String newOwner, long millis) {
        return new LeaseRequest(namespace, slotCount, newOwner, ttl, millis, maxSkew, host, pid, layout, lossGuard,
                preferredSlot);
    }

    /** Whether this borrow may claim only {@link #preferredSlot()}. */
    public boolean hasPreferredSlot() {
        return preferredSlot != ANY_SLOT;
    }

    /**
     * A request whose loss guard is its own {@code ttl + maxSkew}: the smallest safe one, for callers (tools,
     * tests) whose every worker of the namespace uses the same ttl and max-skew. Workers pass the configured one.
     */
    public LeaseRequest(String namespace, int slotCount, String owner, Duration ttl, long workerNowMillis,
                        Duration maxSkew, String host, long pid, String layout) {
        this(namespace, slotCount, owner, ttl, workerNowMillis, maxSkew, host, pid, layout,
                Objects.requireNonNull(ttl, "ttl").plus(Objects.requireNonNull(maxSkew, "maxSkew")));
    }

    /**
     * Refuses this borrow when the worker's clock is more than {@code maxSkew} ahead of {@code centreMillis}
     * (DESIGN rule 13). Centres call it with a reading of their clock taken before they write anything, so a
     * refused borrow stores nothing; a reading taken before the claim is at most the clock at the claim, so the
     * first high-water ({@code workerNow + ttl}) is at most the centre's clock at the claim + ttl + maxSkew.
     *
     * @throws ClockAheadOfCentreException naming both clocks and max-skew
     */
    public void refuseIfAheadOf(long centreMillis) {
        ClockAheadOfCentreException.refuseIfAhead(namespace, "borrow of a worker id",
                workerNowMillis, centreMillis, maxSkew.toMillis());
    }

    /** The guard a centre adds to its clock for a record it lost: {@link #lossGuard()} in milliseconds. */
    public long lossGuardMillis() {
        return lossGuard.toMillis();
    }

    /**
     * Refuses this borrow when the namespace's stored loss guard, the largest any of its borrowers asked for, is
     * larger than this request's: floors this worker would set after a loss would lie below high-waters the
     * namespace's other workers may store. Centres call it while they still keep the namespace's record, before
     * they claim anything; across a loss of that record it cannot be detected.
     *
     * @throws LossGuardLoweredException naming {@code idworker.lease.loss-guard} and both values
     */
    public void refuseIfBelow(long storedGuardMillis) {
        if (lossGuardMillis() < storedGuardMillis) {
            throw new LossGuardLoweredException(namespace, storedGuardMillis, lossGuardMillis());
        }
    }

    /**
     * The first high-water of a lease on a slot whose stored high-water is {@code floorMillis}:
     * {@code max(floor + 1, now + ttl)}. It never exceeds the borrower's clock by more than the ttl unless the
     * floor does, so a floor a centre derives later from its own clock ({@code now + lossGuard}, after data
     * loss) always lies above every high-water stored before. A floor ahead of the clock yields a lease of one
     * millisecond, renewed as soon as the worker reaches it.
     */
    public long firstHighWater(long floorMillis) {
        return Math.max(floorMillis + 1, workerNowMillis + ttl.toMillis());
    }
}
