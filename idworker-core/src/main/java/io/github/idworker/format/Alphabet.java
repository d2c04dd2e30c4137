package io.github.idworker.format;

/**
 * The digits of one radix, in ASCII order, so that equal-length strings of them compare as their values do; with the
 * reverse table and {@link Long#MAX_VALUE} written in them. Immutable.
 */
final class Alphabet {

    static final Alphabet DECIMAL = new Alphabet("decimal", "0123456789", "0-9");
    static final Alphabet BASE36 = new Alphabet("base36", "0123456789abcdefghijklmnopqrstuvwxyz", "0-9, a-z");
    static final Alphabet BASE62 = new Alphabet("base62",
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "0-9, A-Z, a-z");

    /** The name of its minimal-width form. */
    final String name;
    /** The digits as a person reads them in a message. */
    final String ranges;
    final int radix;
    /** {@link Long#MAX_VALUE} in this alphabet: the widest value, and the bound a parse compares against. */
    final String max;

    private final char[] digits;
    /** ASCII character to its value; -1 for one outside the alphabet. */
    private final byte[] values = new byte[128];

    private Alphabet(String name, String digits, String ranges) {
        this.name = name;
        this.ranges = ranges;
        this.digits = digits.toCharArray();
        this.radix = digits.length();
        java.util.Arrays.fill(values, (byte) -1);
        for (int i = 0; i < radix; i++) {
            // ascending ASCII is what makes fixed-width strings sort as numbers; a wrong table must not load
            if (i > 0 && this.digits[i] <= this.digits[i - 1]) {
                throw new IllegalStateException(name + " digits are not in ASCII order at " + i);
            }
            values[this.digits[i]] = (byte) i;
        }
        char[] buffer = new char[64];
        int start = write(Long.MAX_VALUE, buffer, buffer.length);
        this.max = new String(buffer, start, buffer.length - start);
    }

    /** The number of digits of {@link Long#MAX_VALUE}, and so of every fixed-width string. */
    int width() {
        return max.length();
    }

    char zero() {
        return digits[0];
    }

    /** The value of digit {@code c}, or -1 when {@code c} is not one. */
    int valueOf(char c) {
        return c < 128 ? values[c] : -1;
    }

    /**
     * Writes non-negative {@code value} right-aligned so that its last digit is at {@code end - 1}, and returns the
     * index of its first digit. Zero is one digit.
     */
    int write(long value, char[] out, int end) {
        int at = end;
        long rest = value;
        do {
            long next = rest / radix;
            // one division per digit: the remainder comes from the quotient
            out[--at] = digits[(int) (rest - next * radix)];
            rest = next;
        } while (rest != 0);
        return at;
    }
}
