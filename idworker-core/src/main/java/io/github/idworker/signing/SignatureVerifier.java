package io.github.idworker.signing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Checks the signature headers of an ID service request, before anything is handed out. Guarantees: a request is
 * accepted only when its {@code X-Signature} is the HMAC of its own canonical text (method, path, canonical query,
 * timestamp, nonce) under one of the application's current secrets (two during a rotation), compared in constant
 * time; its timestamp is within the window of this server's clock; its nonce is 16 to 64 characters. Replay within
 * the window is the caller's second check, with a nonce store shared by every instance. Every refusal says only
 * which rule failed, never whether the key exists, and never echoes a secret or the expected signature.
 *
 * <p>Steps of {@link #verify}:
 * <ol>
 *   <li>each of the four headers present and non-blank, else {@link Outcome#MISSING_HEADER};</li>
 *   <li>the timestamp a decimal number within {@code ± window} of now, else {@link Outcome#EXPIRED};</li>
 *   <li>the nonce 16 to 64 characters of {@code [A-Za-z0-9_-]}, else {@link Outcome#BAD_NONCE};</li>
 *   <li>the query canonicalisable, else {@link Outcome#BAD_SIGNATURE};</li>
 *   <li>the secrets of the key looked up; an unknown or disabled key is compared against a dummy secret, so it
 *       takes as long and ends as {@link Outcome#BAD_SIGNATURE} alike;</li>
 *   <li>the signature decoded and compared with every secret's HMAC by {@link MessageDigest#isEqual}, each
 *       comparison done, else {@link Outcome#BAD_SIGNATURE}.</li>
 * </ol>
 */
public final class SignatureVerifier {

    /** The default window around the server's clock. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

    /** Why a request was refused, or that it passed. */
    public enum Outcome { VALID, MISSING_HEADER, EXPIRED, BAD_NONCE, BAD_SIGNATURE }

    private static final byte[] DUMMY_SECRET = "idworker-no-such-application-key".getBytes(StandardCharsets.UTF_8);

    private final Function<String, List<String>> secrets;
    private final long windowMillis;
    private final LongSupplier clock;

    /**
     * @param secrets the current secrets of an application key (one, or two during a rotation); empty for an
     *        unknown or disabled key
     * @param window how far a timestamp may be from the server's clock, either way
     * @param clock the server's clock, epoch milliseconds
     */
    public SignatureVerifier(Function<String, List<String>> secrets, Duration window, LongSupplier clock) {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, was " + window);
        }
        this.secrets = secrets;
        this.windowMillis = window.toMillis();
        this.clock = clock;
    }

    /**
     * @param header the request's header of a name (case-insensitive lookup is the caller's), or null
     */
    public Outcome verify(String method, String path, String rawQuery, Function<String, String> header) {
        String appKey = header.apply(RequestSigner.APP_KEY);
        String timestamp = header.apply(RequestSigner.TIMESTAMP);
        String nonce = header.apply(RequestSigner.NONCE);
        String signature = header.apply(RequestSigner.SIGNATURE);
        if (blank(appKey) || blank(timestamp) || blank(nonce) || blank(signature)) {
            return Outcome.MISSING_HEADER;
        }
        long at;
        try {
            at = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return Outcome.EXPIRED;
        }
        if (Math.abs(clock.getAsLong() - at) > windowMillis) {
            return Outcome.EXPIRED;
        }
        if (!validNonce(nonce)) {
            return Outcome.BAD_NONCE;
        }
        String canonical;
        try {
            canonical = CanonicalRequest.of(method, path, rawQuery, at, nonce);
        } catch (IllegalArgumentException e) {
            return Outcome.BAD_SIGNATURE;
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(signature.trim());
        } catch (IllegalArgumentException e) {
            given = new byte[0];
        }
        List<String> current = secrets.apply(appKey);
        boolean match = false;
        if (current == null || current.isEmpty()) {
            // the same work as for a known key, so timing does not tell whether the key exists
            MessageDigest.isEqual(given, RequestSigner.hmac(DUMMY_SECRET, canonical));
        } else {
            for (String secret : current) {
                match |= MessageDigest.isEqual(given, RequestSigner.hmac(secret.getBytes(StandardCharsets.UTF_8),
                        canonical));
            }
        }
        return match ? Outcome.VALID : Outcome.BAD_SIGNATURE;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static boolean validNonce(String nonce) {
        if (nonce.length() < 16 || nonce.length() > 64) {
            return false;
        }
        for (int i = 0; i < nonce.length(); i++) {
            char c = nonce.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
