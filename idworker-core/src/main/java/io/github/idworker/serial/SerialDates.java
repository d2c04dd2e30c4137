package io.github.idworker.serial;

import org.jspecify.annotations.Nullable;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The date part of a serial: a pattern made of the fixed-width tokens {@code yyyy}, {@code MM} and {@code dd},
 * each at most once. Fixed widths matter: with a one-digit month {@code 2026111} could be January 11 or
 * November 1, and two periods would print the same string.
 */
final class SerialDates {

    private static final String[] TOKENS = {"yyyy", "MM", "dd"};

    private SerialDates() {
    }

    /** The tokens of {@code pattern} in order, or null when it is not made of them (each at most once). */
    static @Nullable List<String> tokens(String pattern) {
        List<String> tokens = new ArrayList<>(3);
        int i = 0;
        while (i < pattern.length()) {
            String found = null;
            for (String t : TOKENS) {
                if (pattern.startsWith(t, i)) {
                    found = t;
                    break;
                }
            }
            if (found == null || tokens.contains(found)) {
                return null;
            }
            tokens.add(found);
            i += found.length();
        }
        return tokens;
    }

    /** {@code date} printed with the tokens of a pattern that {@link #tokens} accepted. */
    static String format(List<String> tokens, LocalDate date) {
        StringBuilder out = new StringBuilder(8);
        for (String t : tokens) {
            switch (t) {
                case "yyyy" -> appendDigits(out, date.getYear(), 4);
                case "MM" -> appendDigits(out, date.getMonthValue(), 2);
                default -> appendDigits(out, date.getDayOfMonth(), 2);
            }
        }
        return out.toString();
    }

    /** Appends {@code value} (zero or more) zero-padded to {@code width} digits. */
    static void appendDigits(StringBuilder out, long value, int width) {
        String digits = Long.toString(value);
        for (int pad = width - digits.length(); pad > 0; pad--) {
            out.append('0');
        }
        out.append(digits);
    }
}
