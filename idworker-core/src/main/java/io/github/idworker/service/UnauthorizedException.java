package io.github.idworker.service;

import io.github.idworker.IdWorkerException;

/**
 * A call to the ID service was refused before anything was taken, because it could not be authenticated. The
 * message is only "unauthorized"; {@link #getReason()} says which rule failed, in words that never tell whether
 * the application key exists (an unknown, disabled or wrongly signed key are all {@link Reason#SIGNATURE}).
 */
public class UnauthorizedException extends IdWorkerException {

    /** Which rule refused the call. */
    public enum Reason {
        /** One of X-App-Key, X-Timestamp, X-Nonce, X-Signature is missing or blank. */
        MISSING_HEADER("missing-header"),
        /** X-Timestamp is not epoch milliseconds within the window around the server's clock. */
        TIMESTAMP("timestamp"),
        /** X-Nonce is not 16 to 64 characters of letters, digits, '-' or '_'. */
        NONCE("nonce"),
        /** The nonce was seen before within the window: a replay. */
        REPLAY("replay"),
        /**
         * The call is stamped so early that the nonce store may have recorded its nonce and then lost it (a Redis
         * restarted or promoted since): refused as a possible replay until calls are stamped after the store's new
         * start plus the guard.
         */
        STORE_RESET("store-reset"),
        /** The signature does not match a current secret of an enabled application of this key. */
        SIGNATURE("signature");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        /** The reason's short name, for the server's logs and counts (never sent to the caller). */
        public String code() {
            return code;
        }
    }

    private final Reason reason;

    public UnauthorizedException(Reason reason) {
        super("unauthorized");
        this.reason = reason;
    }

    public Reason getReason() {
        return reason;
    }
}
