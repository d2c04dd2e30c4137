package io.github.idworker.service;

import java.time.Duration;

/**
 * The part of a call's admission that every instance of an environment must share: the nonces already seen and
 * each application's rate. Guarantees of an implementation: {@link #admit} is atomic — a nonce is recorded at
 * most once across every instance, so exactly one of two calls carrying it gets past {@link Decision#REPLAY};
 * a call refused for any reason takes nothing from the application's rate.
 */
public interface RequestGate {

    /** The outcome of {@link #admit}. */
    enum Decision { ADMITTED, REPLAY, FORBIDDEN, RATE_LIMITED }

    /** A decision, with the wait when it is {@link Decision#RATE_LIMITED}. */
    record Admission(Decision decision, Duration retryAfter) {
    }

    /**
     * Records {@code nonce} for {@code nonceTtl} unless it was seen before (then {@link Decision#REPLAY}); then
     * refuses with {@link Decision#FORBIDDEN} unless {@code allowed}; then counts {@code count} IDs against the
     * application's {@code maxPerSecond} in the current second, refusing with {@link Decision#RATE_LIMITED} when
     * they would pass it.
     *
     * @throws IllegalArgumentException when {@code count} or {@code maxPerSecond} is below one or {@code nonce} is
     *         blank; nothing is recorded or counted
     */
    Admission admit(String appKey, String nonce, Duration nonceTtl, boolean allowed, int count, int maxPerSecond);
}
