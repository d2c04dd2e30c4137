package io.github.idworker.signing;

import org.jspecify.annotations.Nullable;

/**
 * The one form of an application's secret that the ID service accepts and the client signs with: 16 to 256
 * characters of printable ASCII without spaces (the service draws 43, 32 random bytes in Base64url). Both sides
 * check it where a secret is configured, so a secret the other side would refuse fails the startup instead of
 * every call. What it says about a secret never includes the secret.
 */
public final class SecretForm {

    /** Fewest characters: an HMAC key of fewer is guessable offline from one signed call. */
    public static final int MIN_LENGTH = 16;
    public static final int MAX_LENGTH = 256;

    /** What is allowed, for messages that name a secret's property or argument. */
    public static final String ALLOWED = MIN_LENGTH + " to " + MAX_LENGTH
            + " printable ASCII characters without spaces, the form the ID service issues and accepts";

    private SecretForm() {
    }

    /**
     * What is wrong with a non-empty {@code secret}'s form, e.g. {@code must be 16 to 256 characters, was 9};
     * {@code null} when it has the form. Names a length or a position, never a character of the secret.
     */
    public static @Nullable String problem(String secret) {
        if (secret.length() < MIN_LENGTH || secret.length() > MAX_LENGTH) {
            return "must be " + MIN_LENGTH + " to " + MAX_LENGTH + " characters, was " + secret.length();
        }
        for (int i = 0; i < secret.length(); i++) {
            char c = secret.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return "must be printable ASCII without spaces (character " + (i + 1) + " is not)";
            }
        }
        return null;
    }
}
