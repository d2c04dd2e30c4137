package io.github.idworker.service;

import io.github.idworker.pool.IdPools;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * The part of a call's admission that every instance of an environment must share: the nonces already seen and
 * each application's rate. Guarantees of an implementation: {@link #admit} is atomic — a nonce is recorded at
 * most once across every instance, so exactly one of two calls carrying it gets past {@link Decision#REPLAY};
 * a call refused for any reason takes nothing from the application's rate; a store that lost nonces it had
 * recorded (data lost, a restart, a fail-over to a replica that lacked them) refuses, with
 * {@link Decision#STORE_RESET}, every call stamped so early that its nonce may have been among them;
 * {@link #admitAndTake} takes from a pool only what an admitted call asked for.
 */
public interface RequestGate {

    /** The outcome of {@link #admit}. */
    enum Decision { ADMITTED, REPLAY, FORBIDDEN, RATE_LIMITED, STORE_RESET }

    /** A decision, with the wait when it is {@link Decision#RATE_LIMITED}. */
    record Admission(Decision decision, Duration retryAfter) {

        /** The admission of every admitted call. */
        public static final Admission ADMITTED = new Admission(Decision.ADMITTED, Duration.ZERO);
    }

    /** The outcome of {@link #admitAndTake}: the admission, and the IDs when it is {@link Decision#ADMITTED}. */
    record AdmittedTake(Admission admission, long @Nullable [] ids) {
    }

    /**
     * Refuses with {@link Decision#STORE_RESET} a call stamped ({@code timestampMillis}) before the start of the
     * store's present data plus {@code resetGuard} — the start of what the store can vouch for: when it began
     * with data of its own or lost the nonces recorded before, e.g. a Redis restarted or promoted — recording
     * nothing; then records {@code nonce} for {@code nonceTtl} unless it was seen before (then
     * {@link Decision#REPLAY}); then
     * refuses with {@link Decision#FORBIDDEN} unless {@code allowed}; then counts {@code count} IDs against the
     * application's {@code maxPerSecond} in the current second, refusing with {@link Decision#RATE_LIMITED} when
     * they would pass it.
     *
     * @param timestampMillis the call's signed timestamp, epoch milliseconds
     * @param resetGuard the latest a call whose nonce was recorded before the store's present data began can be
     *        stamped after that start: the timestamp window plus the clocks' tolerance
     * @throws IllegalArgumentException when {@code count} or {@code maxPerSecond} is below one, {@code nonce} is
     *         blank or {@code resetGuard} negative; nothing is recorded or counted
     */
    Admission admit(String appKey, String nonce, long timestampMillis, Duration nonceTtl, Duration resetGuard,
                    boolean allowed, int count, int maxPerSecond);

    /**
     * Admits a call like {@link #admit} and, only when it is admitted, takes {@code count} IDs of {@code entity}
     * from {@code pools} ({@link IdPools#take}, whose refusals are thrown as they come). A refused call takes
     * nothing. The default makes the two calls one after the other; a gate whose store holds the pools too may
     * make them one atomic step, which may then also leave the application's rate uncounted when the pool refuses.
     *
     * @throws IllegalArgumentException as {@link #admit} does; nothing is recorded, counted or taken
     */
    default AdmittedTake admitAndTake(String appKey, String nonce, long timestampMillis, Duration nonceTtl,
                                      Duration resetGuard, boolean allowed, int maxPerSecond, IdPools pools,
                                      String entity, int count) {
        Admission admission = admit(appKey, nonce, timestampMillis, nonceTtl, resetGuard, allowed, count,
                maxPerSecond);
        return new AdmittedTake(admission,
                admission.decision() == Decision.ADMITTED ? pools.take(entity, count) : null);
    }
}
