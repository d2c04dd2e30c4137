package io.github.idworker;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * A worker's clock reads more than {@code idworker.lease.max-skew} ahead of its lease centre's clock, so the centre
 * refused the borrow or renewal and stored nothing. Thrown by a borrow (the worker does not start) and by a renewal
 * (the worker keeps issuing up to the high-water it stored before, then fences itself: callers get this exception,
 * never an identifier above that high-water).
 *
 * <p>Guarantee it protects (DESIGN rule 13): every high-water a centre stores is at most its own clock +
 * {@code ttl + max-skew}. A centre that later loses its data starts every slot above its clock + ttl + max-skew,
 * so it stays above anything a past holder can have stored, and a successor never repeats an identifier. A
 * worker whose clock runs ahead by more would store high-waters beyond that bound; the centre refuses it instead.
 */
public class ClockAheadOfCentreException extends IdWorkerException {

    /** The property that sets the tolerated difference, quoted in the message. */
    public static final String MAX_SKEW_PROPERTY = "idworker.lease.max-skew";

    private final String namespace;
    private final long workerMillis;
    private final long centreMillis;
    private final long maxSkewMillis;

    /**
     * @param namespace the namespace of the refused call
     * @param what what was refused, e.g. {@code "borrow of a worker id"}
     * @param workerMillis the worker's clock as the call stated it (for a renewal: the requested high-water - ttl)
     * @param centreMillis the centre's clock when it refused
     * @param maxSkewMillis the tolerated difference
     */
    public ClockAheadOfCentreException(String namespace, String what, long workerMillis, long centreMillis,
                                       long maxSkewMillis) {
        this(message(namespace, what, workerMillis, centreMillis, maxSkewMillis), namespace, workerMillis,
                centreMillis, maxSkewMillis, null);
    }

    private ClockAheadOfCentreException(String message, String namespace, long workerMillis, long centreMillis,
                                        long maxSkewMillis, @Nullable Throwable cause) {
        super(message, cause);
        this.namespace = namespace;
        this.workerMillis = workerMillis;
        this.centreMillis = centreMillis;
        this.maxSkewMillis = maxSkewMillis;
    }

    /**
     * Refuses a call whose worker clock is more than {@code maxSkewMillis} ahead of {@code centreMillis}.
     *
     * @throws ClockAheadOfCentreException when {@code workerMillis > centreMillis + maxSkewMillis}
     */
    public static void refuseIfAhead(String namespace, String what, long workerMillis, long centreMillis,
                                     long maxSkewMillis) {
        if (workerMillis > centreMillis + maxSkewMillis) {
            throw new ClockAheadOfCentreException(namespace, what, workerMillis, centreMillis, maxSkewMillis);
        }
    }

    /**
     * This refusal as seen by a caller of a worker that reached {@code highWaterMillis}, its last stored high-water:
     * no identifier was issued. The keeper's refusal is the cause.
     */
    public ClockAheadOfCentreException fencedAt(int workerId, long highWaterMillis) {
        return new ClockAheadOfCentreException("Worker id " + workerId + " of namespace '" + namespace
                + "' reached its lease high-water " + Instant.ofEpochMilli(highWaterMillis) + " and no identifier "
                + "was issued, because the centre refuses to renew the lease: " + getMessage(), namespace,
                workerMillis, centreMillis, maxSkewMillis, this);
    }

    private static String message(String namespace, String what, long workerMillis, long centreMillis,
                                  long maxSkewMillis) {
        return "The lease centre refused the " + what + " of namespace '" + namespace + "': this worker's clock reads "
                + Instant.ofEpochMilli(workerMillis) + " (" + workerMillis + " ms), " + (workerMillis - centreMillis)
                + " ms ahead of the centre's clock " + Instant.ofEpochMilli(centreMillis) + " (" + centreMillis
                + " ms), more than " + MAX_SKEW_PROPERTY + " (" + maxSkewMillis + " ms) allows. High-waters taken "
                + "from this clock could lie beyond what the centre can bound after it loses its data, and a "
                + "successor would repeat identifiers; nothing was stored. Synchronise this host's clock with the "
                + "centre's (NTP, chrony); raising " + MAX_SKEW_PROPERTY + " for every worker of the namespace is the "
                + "other way, at the price of a longer wait after a centre loses its data.";
    }

    public String getNamespace() {
        return namespace;
    }

    /** The worker's clock as the refused call stated it, epoch milliseconds. */
    public long getWorkerMillis() {
        return workerMillis;
    }

    /** The centre's clock when it refused, epoch milliseconds. */
    public long getCentreMillis() {
        return centreMillis;
    }

    /** The tolerated difference ({@value #MAX_SKEW_PROPERTY}) in milliseconds. */
    public long getMaxSkewMillis() {
        return maxSkewMillis;
    }
}
