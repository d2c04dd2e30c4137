package io.github.idworker.server;

/**
 * A short, printable excerpt of request input for an error message: at most {@value #MAX_LENGTH} characters, each
 * outside printable ASCII shown as '?', and the full length named when it was cut. Error answers quote the client's
 * input only this way, so a crafted path or header is neither reflected at length nor carries control characters
 * into a response or a log line.
 */
final class RequestExcerpt {

    static final int MAX_LENGTH = 40;

    private RequestExcerpt() {
    }

    /** {@code input} quoted in single quotes, shortened and cleaned as described above; "nothing" for null. */
    static String quote(String input) {
        if (input == null) {
            return "nothing";
        }
        int shown = Math.min(input.length(), MAX_LENGTH);
        StringBuilder out = new StringBuilder(shown + 32).append('\'');
        for (int i = 0; i < shown; i++) {
            char c = input.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        out.append('\'');
        if (input.length() > shown) {
            out.append("… (").append(input.length()).append(" characters)");
        }
        return out.toString();
    }
}
