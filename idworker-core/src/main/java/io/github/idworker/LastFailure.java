package io.github.idworker;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Remembers whether the last call of one generator failed, with what and when, so health checks and operators
 * can read it from memory instead of asking the store. A success costs two volatile reads (a write only when it
 * ends a failure), so it may sit on a path that runs once per call. Thread-safe, and ordered: a failure whose
 * {@link #failed(Throwable)} began before a {@link #succeeded()} read the ticket counter never marks the
 * generator failing after that success returned, because the state (failing, text, time, ticket) changes in one
 * atomic update.
 */
public final class LastFailure {

    /** One immutable state; {@code ticket} is the newest event it reflects. */
    private record State(boolean failing, @Nullable String failure, long atMillis, long ticket) {
    }

    private static final State NONE = new State(false, null, 0, 0);

    /** Tickets handed to failures as they begin; a success claims every ticket handed out so far. */
    private final AtomicLong tickets = new AtomicLong();
    private final AtomicReference<State> state = new AtomicReference<>(NONE);

    /** Notes a call that succeeded: the generator is no longer failing, the last failure stays readable. */
    public void succeeded() {
        long seen = tickets.get();
        State s = current();
        if (!s.failing && s.ticket >= seen) {
            return;
        }
        // a failure that took its ticket after ours began later than this success: it stays failing
        state.updateAndGet(cur -> cur.ticket > seen ? cur
                : new State(false, cur.failure, cur.atMillis, seen));
    }

    /** Notes a call that failed with {@code e}. */
    public void failed(Throwable e) {
        long ticket = tickets.incrementAndGet();
        // redacted once here, so no reader (endpoint, health, log) can show a store's credentials
        String text = StoreLocations.redact(e.toString());
        long at = System.currentTimeMillis();
        state.updateAndGet(cur -> {
            if (cur.ticket < ticket) {
                return new State(true, text, at, ticket);
            }
            // a later failure wins outright; a success that began after this failure began keeps the generator
            // not failing, and this failure stays readable as the last one
            return cur.failing ? cur : new State(false, text, at, cur.ticket);
        });
    }

    /** Whether the last call failed. */
    public boolean failing() {
        return current().failing;
    }

    /** The last failure, as text, or {@code null} when none happened. */
    public @Nullable String failure() {
        return current().failure;
    }

    /** When the last failure happened, or {@code null} when none happened. */
    public @Nullable Instant at() {
        State s = current();
        return s.failure == null ? null : Instant.ofEpochMilli(s.atMillis);
    }

    /** The state now; it starts at {@link #NONE} and every update returns a state, so it is never null. */
    @SuppressWarnings("NullAway") // AtomicReference.get() counts as nullable; this reference is never set to null
    private State current() {
        return state.get();
    }
}
