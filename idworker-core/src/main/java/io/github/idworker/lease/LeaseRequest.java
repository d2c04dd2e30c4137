package io.github.idworker.lease;

import io.github.idworker.ClockAheadOfCentreException;

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
 */
public record LeaseRequest(String namespace, int slotCount, String owner, Duration ttl, long workerNowMillis,
                           Duration maxSkew, String host, long pid, String layout) {

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
        host = host == null ? "" : host;
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

    /** The guard a centre adds to its clock for a record it lost: {@code ttl + maxSkew} in milliseconds. */
    public long lossGuardMillis() {
        return ttl.toMillis() + maxSkew.toMillis();
    }

    /**
     * The first high-water of a lease on a slot whose stored high-water is {@code floorMillis}:
     * {@code max(floor + 1, now + ttl)}. It never exceeds the borrower's clock by more than the ttl unless the
     * floor does, so a floor a centre derives later from its own clock ({@code now + ttl + skew}, after data
     * loss) always lies above every high-water stored before. A floor ahead of the clock yields a lease of one
     * millisecond, renewed as soon as the worker reaches it.
     */
    public long firstHighWater(long floorMillis) {
        return Math.max(floorMillis + 1, workerNowMillis + ttl.toMillis());
    }
}
