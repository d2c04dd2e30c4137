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
 *   <li>the timestamp a plain decimal number (no sign, no leading zero) within {@code ± window} of now, else
 *       {@link Outcome#EXPIRED};</li>
 *   <li>the nonce 16 to 64 characters of {@code [A-Za-z0-9_-]}, else {@link Outcome#BAD_NONCE};</li>
 *   <li>the query canonicalisable, else {@link Outcome#BAD_SIGNATURE};</li>
 *   <li>the secrets of the key looked up; an unknown or disabled key is compared against a dummy secret, so it
 *       takes as long and ends as {@link Outcome#BAD_SIGNATURE} alike;</li>
 *   <li>the signature decoded and compared by {@link MessageDigest#isEqual} with the HMAC under each of two
 *       secrets — the key's current and previous ones, dummies where it has fewer — every comparison done, so the
 *       time taken is the same for every key; else {@link Outcome#BAD_SIGNATURE}.</li>
 * </ol>
 */
public final class SignatureVerifier {

    /** The default window around the server's clock. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

    /** Why a request was refused, or that it passed. */
    public enum Outcome { VALID, MISSING_HEADER, EXPIRED, BAD_NONCE, BAD_SIGNATURE }

    /** Secrets a key has at most: the current one and, during a rotation, the previous one. */
    private static final int MAX_SECRETS = 2;
    private static final java.util.regex.Pattern PLAIN_DECIMAL = java.util.regex.Pattern.compile("0|[1-9][0-9]{0,18}");
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
        // plain decimal only (no sign, no leading zeros): the canonical text holds the number re-rendered, which
        // then equals the header as sent — what a client in any language signs
        if (!PLAIN_DECIMAL.matcher(timestamp.trim()).matches()) {
            return Outcome.EXPIRED;
        }
        long at;
        try {
            at = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return Outcome.EXPIRED;
        }
        long distance = clock.getAsLong() - at;
        // both ways, not Math.abs: the difference overflows to Long.MIN_VALUE at 2^63 ms, whose absolute value is negative
        if (distance > windowMillis || distance < -windowMillis) {
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
        // always at least MAX_SECRETS comparisons, dummies filling in: timing tells neither whether the key exists nor
        // whether it is rotating
        int comparisons = Math.max(MAX_SECRETS, current == null ? 0 : current.size());
        for (int i = 0; i < comparisons; i++) {
            boolean real = current != null && i < current.size();
            byte[] key = real ? current.get(i).getBytes(StandardCharsets.UTF_8) : DUMMY_SECRET;
            boolean equal = MessageDigest.isEqual(given, RequestSigner.hmac(key, canonical));
            match |= real && equal;
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
