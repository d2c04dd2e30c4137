package io.github.idworker.client;

import org.jspecify.annotations.Nullable;

/**
 * The service refused the request. Either at once, for a reason that is the same in every environment — 400 (bad
 * count or entity name), 403 (the application may not take from this entity) — so the client neither failed over
 * nor counted it against the environment's circuit; or with 401 (signature, timestamp, nonce, replay, unknown or
 * disabled key) or 404 (see {@link UnknownEntityException}) from every environment that answered — each counted
 * against its environment's circuit and failed over from, since environments keep their own clocks, nonces,
 * applications and entities — while the others failed or were skipped, as the message lists. Carries the fields of
 * the RFC 9457 problem document of the refusal thrown (the first 401, else the first 404) when its body had one.
 */
public class IdServiceRefusedException extends IdServiceException {

    private final int status;
    private final @Nullable String title;
    private final @Nullable String detail;

    public IdServiceRefusedException(String message, int status, @Nullable String title, @Nullable String detail) {
        super(message);
        this.status = status;
        this.title = title;
        this.detail = detail;
    }

    /** The HTTP status: 400, 401, 403 or 404. */
    public int getStatus() {
        return status;
    }

    /** The problem document's {@code title}, or null. */
    public @Nullable String getTitle() {
        return title;
    }

    /**
     * The problem document's {@code detail}, or null; {@code "unauthorized"} for every 401, which by design says
     * nothing more (the service counts which rule refused the call on its side).
     */
    public @Nullable String getDetail() {
        return detail;
    }
}
