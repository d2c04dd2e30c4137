package io.github.idworker.signing;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The text an ID service request is signed over, built the same way by the client that signs and the server that
 * verifies, so the two cannot drift. Guarantees: two requests that differ in method, path, query (other than the
 * order or the percent-encoding of its parameters), timestamp or nonce have different canonical texts.
 *
 * <p>Steps:
 * <ol>
 *   <li>the method in upper case;</li>
 *   <li>the path exactly as sent, percent-encoding included (an empty path is {@code /});</li>
 *   <li>the query: split at {@code &}, each parameter split at its first {@code =}, name and value
 *       percent-decoded (UTF-8; {@code +} stays a plus) and encoded again per RFC 3986 (unreserved characters
 *       as they are, every other byte as {@code %XX} in upper case), sorted by name then value, joined by
 *       {@code &}; empty parameters are dropped;</li>
 *   <li>the timestamp, epoch milliseconds in decimal;</li>
 *   <li>the nonce;</li>
 * </ol>
 * joined by line feeds ({@code \n}), without a trailing one.
 */
public final class CanonicalRequest {

    private CanonicalRequest() {
    }

    /**
     * @param rawQuery the query as sent, without {@code ?}; {@code null} or empty for none
     * @throws IllegalArgumentException when the query holds a malformed percent-escape
     */
    public static String of(String method, String path, String rawQuery, long timestampMillis, String nonce) {
        return method.toUpperCase(Locale.ROOT) + '\n' + (path == null || path.isEmpty() ? "/" : path) + '\n'
                + query(rawQuery) + '\n' + timestampMillis + '\n' + nonce;
    }

    /** The canonical form of a raw query: decoded, encoded again per RFC 3986, sorted, joined by {@code &}. */
    public static String query(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> params = new ArrayList<>();
        for (String part : rawQuery.split("&")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            String value = eq < 0 ? "" : part.substring(eq + 1);
            params.add(new String[] {encode(decode(name)), encode(decode(value))});
        }
        params.sort(Comparator.<String[], String>comparing(p -> p[0]).thenComparing(p -> p[1]));
        StringBuilder sb = new StringBuilder();
        for (String[] p : params) {
            if (sb.length() > 0) {
                sb.append('&');
            }
            sb.append(p[0]).append('=').append(p[1]);
        }
        return sb.toString();
    }

    /** RFC 3986 encoding of UTF-8 text: unreserved characters kept, every other byte {@code %XX}. */
    public static String encode(String text) {
        StringBuilder sb = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    /** Percent-decoding as UTF-8 in which {@code +} stays a plus (the form decoding of URLDecoder would not). */
    private static String decode(String text) {
        return text.indexOf('%') < 0 ? text : URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
