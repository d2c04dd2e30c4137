package io.github.idworker.redis;

import io.github.idworker.CenterUnavailableException;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads the elements of a Lua script's reply whatever form the Redis client gives them ({@link Long},
 * {@link String} or {@code byte[]}); a reply that lacks an element is a {@link CenterUnavailableException}
 * quoting the whole reply, never a silent default.
 */
public final class ScriptReplies {

    private ScriptReplies() {
    }

    /**
     * The element at {@code index} as text.
     *
     * @param context what the reply answered, for the error message (e.g. "lease-borrow for namespace 'a'")
     */
    public static String text(List<Object> reply, int index, String context) {
        if (index >= reply.size()) {
            throw new CenterUnavailableException("Redis reply " + describe(reply) + " to " + context
                    + " has no element " + index, null);
        }
        Object o = reply.get(index);
        if (o instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return String.valueOf(o);
    }

    /** The element at {@code index} as a number. */
    public static long number(List<Object> reply, int index, String context) {
        Object o = index < reply.size() ? reply.get(index) : null;
        if (o instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(text(reply, index, context));
        } catch (NumberFormatException e) {
            throw new CenterUnavailableException("Redis reply " + describe(reply) + " to " + context
                    + " has no number at " + index, e);
        }
    }

    /** The reply as readable text. */
    public static String describe(List<Object> reply) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < reply.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            Object o = reply.get(i);
            sb.append(o instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(o));
        }
        return sb.append(']').toString();
    }
}
