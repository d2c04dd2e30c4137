package io.github.idworker.client;

import org.jspecify.annotations.Nullable;

/**
 * The share of the ID space one environment of the service hands out, as its header {@value #HEADER} reports it
 * on every {@code 200}: environment {@code e} of {@code E} issues only IDs with {@code id mod E = e}, so
 * environments with different {@code e} of one {@code E} never issue the same ID.
 *
 * @param environment {@code e}, {@code 0 ≤ e < E}
 * @param environments {@code E}, how many independent environments share the ID space
 */
record EnvironmentSplit(int environment, int environments) {

    static final String HEADER = "X-Id-Environment";

    /** More digits may not fit an {@code int}. */
    private static final int MAX_DIGITS = 9;

    /**
     * The split of a header value {@code e/E}: decimal digits only, {@code 0 ≤ e < E}; surrounding blanks are
     * ignored.
     *
     * @return null when {@code text} is not such a value
     */
    static @Nullable EnvironmentSplit parse(String text) {
        String value = text.strip();
        int slash = value.indexOf('/');
        if (slash < 0) {
            return null;
        }
        int e = digits(value, 0, slash);
        int n = digits(value, slash + 1, value.length());
        return e >= 0 && n >= 1 && e < n ? new EnvironmentSplit(e, n) : null;
    }

    /** The number written in {@code text[from, to)}, or -1 unless it is 1 to {@value #MAX_DIGITS} decimal digits. */
    private static int digits(String text, int from, int to) {
        if (to - from < 1 || to - from > MAX_DIGITS) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** Whether this split issues {@code id} (IDs are never negative). */
    boolean issues(long id) {
        return id % environments == environment;
    }

    /** {@code e/E}, as the header says it. */
    @Override
    public String toString() {
        return environment + "/" + environments;
    }
}
