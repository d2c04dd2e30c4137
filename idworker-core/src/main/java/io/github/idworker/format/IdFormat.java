package io.github.idworker.format;

import org.jspecify.annotations.Nullable;

import java.util.Objects;

/**
 * One string form of a non-negative 64-bit identifier: its digits (decimal, radix 36 or radix 62), minimal or fixed
 * width, and an optional prefix such as {@code ord_}. Get one from {@link IdFormats}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@code parse(format(x)) == x} for every {@code x >= 0}, and every text {@code parse} accepts is the one
 *       {@code format} writes for its value: one spelling per identifier (no leading zeros in a minimal form,
 *       exactly {@link #width()} digits in a fixed one, the prefix exactly as given);</li>
 *   <li>anything else is refused with an {@link IllegalArgumentException} that says what is wrong — the prefix, a
 *       character outside the alphabet and its index, the length, a value beyond {@link Long#MAX_VALUE} — and never
 *       wraps or rounds;</li>
 *   <li>fixed-width strings of one form compare ({@link String#compareTo}) exactly as their numbers do, because every
 *       alphabet is in ASCII order ({@code 0-9}, then {@code A-Z}, then {@code a-z});</li>
 *   <li>a negative value is refused by {@link #format}: identifiers are never negative.</li>
 * </ul>
 * Immutable and thread-safe; no regular expressions or big numbers on either path.
 */
public final class IdFormat {

    /** How much of a refused text a message quotes, so a hostile value cannot flood a log. */
    private static final int EXCERPT = 40;

    private final Alphabet alphabet;
    private final boolean fixed;
    private final String prefix;

    IdFormat(Alphabet alphabet, boolean fixed, String prefix) {
        this.alphabet = alphabet;
        this.fixed = fixed;
        this.prefix = prefix;
    }

    /**
     * This form with {@code prefix} before every identifier ({@code ord_3D7kZ0}); replaces any prefix it had.
     *
     * @param prefix one or more printable ASCII characters, no whitespace
     * @throws IllegalArgumentException naming {@code prefix} when it is empty or holds another character
     */
    public IdFormat withPrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("prefix must be one or more printable ASCII characters without "
                    + "whitespace (such as \"ord_\"), was empty");
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c <= ' ' || c > '~') {
                throw new IllegalArgumentException("prefix must be printable ASCII characters without whitespace "
                        + "(such as \"ord_\"); " + describe(c) + " at index " + i + " of " + quote(prefix) + " is not");
            }
        }
        return new IdFormat(alphabet, fixed, prefix);
    }

    /** The name {@link IdFormats#named} knows this form by, such as {@code base62-fixed}; the prefix is not in it. */
    public String name() {
        return fixed ? alphabet.name + "-fixed" : alphabet.name;
    }

    /** The prefix written before every identifier; empty when there is none. */
    public String prefix() {
        return prefix;
    }

    /** 10, 36 or 62. */
    public int radix() {
        return alphabet.radix;
    }

    /** Whether every identifier is written with {@link #width()} digits, left-padded with the alphabet's zero. */
    public boolean isFixedWidth() {
        return fixed;
    }

    /** The number of digits of {@link Long#MAX_VALUE} in this radix (19, 13 or 11): the most a value needs. */
    public int width() {
        return alphabet.width();
    }

    /** The longest text this form writes: the prefix and {@link #width()} digits. */
    public int maxLength() {
        return prefix.length() + alphabet.width();
    }

    /**
     * {@code id} in this form.
     *
     * @throws IllegalArgumentException naming {@code id} when it is negative
     */
    public String format(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("id must be non-negative (identifiers are never negative), was " + id);
        }
        int p = prefix.length();
        char[] out = new char[p + alphabet.width()];
        prefix.getChars(0, p, out, 0);
        int start = alphabet.write(id, out, out.length);
        if (fixed) {
            java.util.Arrays.fill(out, p, start, alphabet.zero());
            return new String(out);
        }
        // minimal width: the digits move left to meet the prefix
        System.arraycopy(out, start, out, p, out.length - start);
        return new String(out, 0, p + out.length - start);
    }

    /**
     * The identifier {@code text} spells in this form: the exact inverse of {@link #format}.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}: a missing prefix, no digits, the
     *     wrong number of digits (too many; in a fixed form any number but {@link #width()}), a character outside
     *     the alphabet with its index, a leading zero in a minimal form, a value beyond {@link Long#MAX_VALUE}
     */
    public long parse(CharSequence text) {
        Objects.requireNonNull(text, "text");
        int p = prefix.length();
        int length = text.length();
        if (length < p || !startsWithPrefix(text)) {
            throw refused(text, "does not start with the prefix " + quote(prefix));
        }
        int digits = length - p;
        int width = alphabet.width();
        if (digits == 0) {
            throw refused(text, p == 0 ? "is empty" : "has no digits after the prefix");
        }
        if (fixed && digits != width) {
            throw refused(text, "has " + digits + " digits" + (p == 0 ? "" : " after the prefix") + "; the "
                    + name() + " form has exactly " + width);
        }
        if (digits > width) {
            throw refused(text, "is too long: " + digits + " digits" + (p == 0 ? "" : " after the prefix")
                    + ", at most " + width + " in " + alphabet.name);
        }
        for (int i = p; i < length; i++) {
            char c = text.charAt(i);
            if (alphabet.valueOf(c) < 0) {
                throw refused(text, "has " + describe(c) + " at index " + i + ", outside the " + alphabet.name
                        + " digits " + alphabet.ranges);
            }
        }
        if (!fixed && digits > 1 && text.charAt(p) == alphabet.zero()) {
            throw refused(text, "has a leading zero; the " + name() + " form writes none (the "
                    + name() + "-fixed form pads with zeros)");
        }
        if (digits == width && exceedsMax(text, p)) {
            throw refused(text, "is beyond the largest identifier, Long.MAX_VALUE (" + prefix + alphabet.max
                    + " in " + name() + ")");
        }
        long value = 0;
        int radix = alphabet.radix;
        for (int i = p; i < length; i++) {
            value = value * radix + alphabet.valueOf(text.charAt(i));
        }
        return value;
    }

    private boolean startsWithPrefix(CharSequence text) {
        for (int i = 0; i < prefix.length(); i++) {
            if (text.charAt(i) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the digits from {@code from}, as many as {@link Long#MAX_VALUE}'s, spell a larger value. */
    private boolean exceedsMax(CharSequence text, int from) {
        // equal lengths in an ASCII-ordered alphabet: the first differing character decides, as for numbers
        String max = alphabet.max;
        for (int i = 0; i < max.length(); i++) {
            char c = text.charAt(from + i);
            if (c != max.charAt(i)) {
                return c > max.charAt(i);
            }
        }
        return false;
    }

    private IllegalArgumentException refused(CharSequence text, String problem) {
        return new IllegalArgumentException("identifier " + quote(text) + " (" + this + ") " + problem);
    }

    /** {@code text} in double quotes, cut after {@value #EXCERPT} characters, anything unprintable escaped. */
    static String quote(CharSequence text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), EXCERPT) + 8).append('"');
        for (int i = 0; i < text.length() && i < EXCERPT; i++) {
            char c = text.charAt(i);
            if (c < ' ' || c > '~' || c == '"' || c == '\\') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (text.length() > EXCERPT) {
            out.append("…");
        }
        return out.append('"').toString();
    }

    /** One character for a message: itself when printable, its code point when not. */
    private static String describe(char c) {
        return c > ' ' && c <= '~' ? "'" + c + "'" : String.format("U+%04X", (int) c);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof IdFormat f && f.alphabet == alphabet && f.fixed == fixed && f.prefix.equals(prefix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(alphabet.name, fixed, prefix);
    }

    /** Its name, and its prefix when it has one: {@code base62-fixed with prefix "ord_"}. */
    @Override
    public String toString() {
        return prefix.isEmpty() ? name() : name() + " with prefix " + quote(prefix);
    }
}
