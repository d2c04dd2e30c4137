package io.github.idworker.service;

import io.github.idworker.pool.IdPools;
import io.github.idworker.signing.RequestSigner;
import io.github.idworker.signing.SignatureVerifier;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Decides whether a signed call to the ID service may take {@code count} IDs of an entity, before anything is
 * taken. Guarantees: a call passes only when its signature is valid under a current secret of an enabled
 * application, its timestamp is within the window, its nonce was never seen by any instance sharing the
 * {@link RequestGate} while the timestamp could still pass, the application may take from the entity, and its own
 * rate allows {@code count} more IDs. Refusals are typed and say nothing about whether a key exists.
 *
 * <p>Steps of {@link #authenticate}:
 * <ol>
 *   <li>{@link SignatureVerifier}: headers present, timestamp within {@code ± window}, nonce well-formed,
 *       signature compared in constant time against the key's secrets (a dummy one for an unknown or disabled
 *       key) — else {@link UnauthorizedException} with the rule that failed;</li>
 *   <li>one atomic {@link RequestGate#admit} call: record the nonce until the timestamp can no longer pass on
 *       any instance ({@code timestamp + window − now}, plus {@code clockTolerance} for instances whose clocks
 *       differ) — a call stamped before the nonce store's present data began plus {@code resetGuard} (by default
 *       {@code window + clockTolerance}: the latest a call whose nonce the store lost can be stamped) is
 *       {@link UnauthorizedException.Reason#STORE_RESET}, a nonce seen before is
 *       {@link UnauthorizedException.Reason#REPLAY}; then the entity must be one
 *       the application may take from ({@link EntityForbiddenException}); then its own rate
 *       ({@link AppRateLimitedException}).</li>
 * </ol>
 * Refusing a replay before a forbidden entity means a replayed call learns nothing new.
 */
public class RequestAuthenticator {

    /** How far the clocks of two instances may differ without opening a replay window. */
    public static final Duration DEFAULT_CLOCK_TOLERANCE = Duration.ofMinutes(1);

    private final ServiceApps apps;
    private final RequestGate gate;
    private final SignatureVerifier verifier;
    private final long windowMillis;
    private final long toleranceMillis;
    private final Duration resetGuard;
    private final LongSupplier clock;

    public RequestAuthenticator(ServiceApps apps, RequestGate gate, Duration window) {
        this(apps, gate, window, DEFAULT_CLOCK_TOLERANCE, System::currentTimeMillis);
    }

    /**
     * @param window how far a call's timestamp may be from this server's clock, either way
     * @param clockTolerance added to the time a nonce is kept, for instances whose clocks differ by up to this
     * @param clock this server's clock, epoch milliseconds
     */
    public RequestAuthenticator(ServiceApps apps, RequestGate gate, Duration window, Duration clockTolerance,
                                LongSupplier clock) {
        this(apps, gate, window, clockTolerance, null, clock);
    }

    /**
     * @param window how far a call's timestamp may be from this server's clock, either way
     * @param clockTolerance added to the time a nonce is kept, for instances whose clocks differ by up to this
     * @param resetGuard how long after the nonce store's present data began calls stamped before are refused; null
     *        for {@link #safeResetGuard}, the least that lets no replay through a store's loss. Less opens that
     *        window: a call captured up to {@code safeResetGuard − resetGuard} before a loss can be replayed once.
     * @param clock this server's clock, epoch milliseconds
     */
    public RequestAuthenticator(ServiceApps apps, RequestGate gate, Duration window, Duration clockTolerance,
                                @Nullable Duration resetGuard, LongSupplier clock) {
        this.apps = Objects.requireNonNull(apps, "apps");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.verifier = new SignatureVerifier(apps::secrets, window, clock);
        this.windowMillis = window.toMillis();
        if (clockTolerance == null || clockTolerance.isNegative()) {
            throw new IllegalArgumentException("clockTolerance must not be negative, was " + clockTolerance);
        }
        this.toleranceMillis = clockTolerance.toMillis();
        if (resetGuard != null && resetGuard.isNegative()) {
            throw new IllegalArgumentException("resetGuard must not be negative, was " + resetGuard);
        }
        this.resetGuard = resetGuard != null ? resetGuard : safeResetGuard(window, clockTolerance);
        this.clock = clock;
    }

    /**
     * The reset guard that lets no replay through a loss of the nonce store: a call whose nonce was recorded at the
     * store's time {@code t} is stamped at most {@code window} after the clock of the instance that admitted it,
     * which is at most {@code clockTolerance} ahead of the store's.
     */
    public static Duration safeResetGuard(Duration window, Duration clockTolerance) {
        return window.plus(clockTolerance);
    }

    /** How long after the nonce store's present data began calls stamped before are refused. */
    public Duration resetGuard() {
        return resetGuard;
    }

    /**
     * @param header the request's header of a name, looked up case-insensitively by the caller; null when absent
     * @return the authenticated application
     * @throws UnauthorizedException when the call cannot be authenticated or is a replay
     * @throws EntityForbiddenException when the application may not take from {@code entity}
     * @throws AppRateLimitedException when {@code count} more IDs would pass the application's own limit
     */
    public ServiceApp authenticate(String method, String path, String rawQuery, Function<String, String> header,
                                   String entity, int count) {
        return authenticate(method, path, rawQuery, header, ServiceApp.POOL_FAMILY, entity, count);
    }

    /**
     * Authenticates a call of {@code name} in {@code family} (one of {@link ServiceApp#FAMILIES}) that hands out
     * {@code count} IDs, counted against the application's own limit.
     *
     * @throws UnauthorizedException when the call cannot be authenticated or is a replay
     * @throws EntityForbiddenException when the application has no grant for {@code family:name}
     * @throws AppRateLimitedException when {@code count} more IDs would pass the application's own limit
     */
    public ServiceApp authenticate(String method, String path, String rawQuery, Function<String, String> header,
                                   String family, String name, int count) {
        ServiceApp app = verified(method, path, rawQuery, header);
        long timestamp = timestamp(header);
        RequestGate.Admission admission = gate.admit(app.appKey(), header.apply(RequestSigner.NONCE), timestamp,
                nonceTtl(timestamp), resetGuard, app.allows(family, name), count, app.maxPerSecond());
        admitted(admission, app, family, name, count);
        return app;
    }

    /**
     * Authenticates a pool call like {@link #authenticate(String, String, String, Function, String, int)} and,
     * once it is admitted, takes its {@code count} IDs of {@code entity} from {@code pools}: through
     * {@link RequestGate#admitAndTake}, which a gate whose store holds the pools too (a single Redis) makes one
     * round trip. A refused call takes nothing.
     *
     * @return the IDs, {@code count} of them
     * @throws UnauthorizedException when the call cannot be authenticated or is a replay
     * @throws EntityForbiddenException when the application may not take from {@code entity}
     * @throws AppRateLimitedException when {@code count} more IDs would pass the application's own limit
     * @throws io.github.idworker.IdWorkerException the refusals of {@link IdPools#take} (empty pool, the entity's
     *         rate, a count above its {@code max-per-request}, ...)
     */
    public long[] take(String method, String path, String rawQuery, Function<String, String> header, IdPools pools,
                       String entity, int count) {
        ServiceApp app = verified(method, path, rawQuery, header);
        long timestamp = timestamp(header);
        RequestGate.AdmittedTake taken = gate.admitAndTake(app.appKey(), header.apply(RequestSigner.NONCE),
                timestamp, nonceTtl(timestamp), resetGuard, app.allows(ServiceApp.POOL_FAMILY, entity),
                app.maxPerSecond(), pools, entity, count);
        admitted(taken.admission(), app, ServiceApp.POOL_FAMILY, entity, count);
        long[] ids = taken.ids();
        if (ids == null) {
            throw new IllegalStateException(gate + " admitted a call to pool '" + entity + "' without its IDs");
        }
        return ids;
    }

    /** Step 1: the signature, and the application it names, enabled. */
    private ServiceApp verified(String method, String path, String rawQuery, Function<String, String> header) {
        SignatureVerifier.Outcome outcome = verifier.verify(method, path, rawQuery, header);
        switch (outcome) {
            case VALID -> { }
            case MISSING_HEADER -> throw new UnauthorizedException(UnauthorizedException.Reason.MISSING_HEADER);
            case EXPIRED -> throw new UnauthorizedException(UnauthorizedException.Reason.TIMESTAMP);
            case BAD_NONCE -> throw new UnauthorizedException(UnauthorizedException.Reason.NONCE);
            default -> throw new UnauthorizedException(UnauthorizedException.Reason.SIGNATURE);
        }
        String appKey = header.apply(RequestSigner.APP_KEY);
        ServiceApp app = apps.find(appKey).orElse(null);
        if (app == null || !app.enabled()) {
            // disabled or deleted between the signature check and here: the same answer as an unknown key
            throw new UnauthorizedException(UnauthorizedException.Reason.SIGNATURE);
        }
        return app;
    }

    private static long timestamp(Function<String, String> header) {
        return Long.parseLong(header.apply(RequestSigner.TIMESTAMP).trim());
    }

    /** Until the timestamp can no longer pass on any instance. */
    private Duration nonceTtl(long timestamp) {
        return Duration.ofMillis(Math.max(1, timestamp + windowMillis - clock.getAsLong()) + toleranceMillis);
    }

    /** Step 2's refusals as exceptions; returns when the call was admitted. */
    private static void admitted(RequestGate.Admission admission, ServiceApp app, String family, String name,
                                 int count) {
        switch (admission.decision()) {
            case ADMITTED -> { }
            case REPLAY -> throw new UnauthorizedException(UnauthorizedException.Reason.REPLAY);
            case STORE_RESET -> throw new UnauthorizedException(UnauthorizedException.Reason.STORE_RESET);
            case FORBIDDEN -> throw new EntityForbiddenException(app.appKey(), family, name);
            case RATE_LIMITED -> throw new AppRateLimitedException(app.appKey(), count, app.maxPerSecond(),
                    admission.retryAfter());
        }
    }
}
