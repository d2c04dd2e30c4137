package io.github.idworker.redis;

import org.jspecify.annotations.Nullable;

/**
 * Recognises Redis's refusal of one call whose keys hash to different slots ({@code CROSSSLOT}), which a server
 * gives before it runs anything: a script so refused recorded nothing and popped nothing, so its caller may make
 * the same steps in calls of one hash tag each. Guarantee: true only when the error chain carries that refusal.
 */
public final class CrossSlot {

    private static final String CODE = "CROSSSLOT";

    private CrossSlot() {
    }

    /** Whether {@code failure} or one of its causes is Redis's {@code CROSSSLOT} error. */
    public static boolean refused(@Nullable Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains(CODE)) {
                return true;
            }
        }
        return false;
    }
}
