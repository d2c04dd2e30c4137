package io.github.idworker.signing;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Signs requests to the ID service for one application: {@code X-Signature} = Base64(HMAC-SHA256(secret,
 * {@link CanonicalRequest})), with {@code X-App-Key}, {@code X-Timestamp} (epoch milliseconds) and {@code X-Nonce}
 * (22 characters, 128 random bits). Guarantees: the secret never leaves this object — not in {@link #toString()},
 * not in any header — and every call gets a fresh nonce. Thread-safe.
 */
public final class RequestSigner {

    public static final String APP_KEY = "X-App-Key";
    public static final String TIMESTAMP = "X-Timestamp";
    public static final String NONCE = "X-Nonce";
    public static final String SIGNATURE = "X-Signature";
    static final String ALGORITHM = "HmacSHA256";

    private static final SecureRandom RANDOM = new SecureRandom();
    /** One Mac a thread: {@link Mac#getInstance} searches the providers at every call. */
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(ALGORITHM);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    });

    private final String appKey;
    private final byte[] secret;

    /**
     * @param secret the application's secret, as issued (its UTF-8 bytes are the HMAC key)
     * @throws IllegalArgumentException naming the argument when the key or the secret is blank
     */
    public RequestSigner(String appKey, String secret) {
        if (appKey == null || appKey.isBlank()) {
            throw new IllegalArgumentException("appKey must not be blank");
        }
        if (secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("secret must not be blank");
        }
        this.appKey = appKey;
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
    }

    public String appKey() {
        return appKey;
    }

    /** The four headers of a call made now, with a fresh nonce. */
    public Map<String, String> sign(String method, String path, String rawQuery) {
        return sign(method, path, rawQuery, System.currentTimeMillis(), newNonce());
    }

    /** The four headers of a call with the given timestamp and nonce (for tests and other clocks). */
    public Map<String, String> sign(String method, String path, String rawQuery, long timestampMillis, String nonce) {
        Objects.requireNonNull(nonce, "nonce");
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(APP_KEY, appKey);
        headers.put(TIMESTAMP, Long.toString(timestampMillis));
        headers.put(NONCE, nonce);
        headers.put(SIGNATURE, signature(secret, CanonicalRequest.of(method, path, rawQuery, timestampMillis, nonce)));
        return headers;
    }

    /** 128 random bits, Base64url without padding: 22 characters. */
    public static String newNonce() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Base64(HMAC-SHA256(secret, canonical)). */
    static String signature(byte[] secret, String canonical) {
        return Base64.getEncoder().encodeToString(hmac(secret, canonical));
    }

    static byte[] hmac(byte[] secret, String canonical) {
        try {
            // keyed anew each call (a server verifies under two keys a call); doFinal leaves no state behind
            Mac mac = MACS.get();
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            return mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    @Override
    public String toString() {
        return "RequestSigner[" + appKey + "]";
    }
}
