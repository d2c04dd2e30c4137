package io.github.idworker.server;

/**
 * A request whose path or query is not in the one spelling the service accepts (see {@link StrictRequestFilter});
 * answered with HTTP 400 naming the part ({@code path} or {@code query}) and what is allowed.
 */
public class MalformedRequestException extends RuntimeException {

    private final String part;

    public MalformedRequestException(String part, String message) {
        super(message);
        this.part = part;
    }

    /** {@code path} or {@code query}. */
    public String getPart() {
        return part;
    }
}
