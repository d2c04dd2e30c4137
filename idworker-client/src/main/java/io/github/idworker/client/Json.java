package io.github.idworker.client;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The two JSON shapes the service answers with, read strictly per RFC 8259 without a JSON library (the client
 * depends on nothing but the JDK and slf4j). Guarantees: {@link #idArray} accepts only an array of exactly the
 * expected number of distinct non-negative decimal integers that fit a {@code long}; {@link #object} accepts only
 * one object; anything after the value but whitespace, any syntax error, nesting deeper than {@value #MAX_DEPTH}
 * is a {@link MalformedJsonException} saying what was expected where. Never a partial result.
 */
final class Json {

    static final int MAX_DEPTH = 32;

    /** A noncharacter standing for the end of the text; {@link #error} tells the two apart by position. */
    private static final char END = '\uffff';

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Thrown for a body that is not the expected JSON; the message says what and at which character. */
    static final class MalformedJsonException extends RuntimeException {
        MalformedJsonException(String message) {
            super(message);
        }
    }

    /**
     * The IDs of a {@code 200} body: {@code [4,6,8]}.
     *
     * @throws MalformedJsonException unless the body is an array of exactly {@code expected} distinct
     *         non-negative integers (no sign, fraction or exponent; at most {@link Long#MAX_VALUE})
     */
    static long[] idArray(String text, int expected) {
        Json json = new Json(text);
        json.skipWhitespace();
        json.expect('[');
        long[] ids = new long[expected];
        int n = 0;
        json.skipWhitespace();
        if (json.peek() == ']') {
            json.pos++;
        } else {
            while (true) {
                json.skipWhitespace();
                if (n == expected) {
                    throw json.error("more than the " + expected + " IDs asked for");
                }
                ids[n++] = json.nonNegativeLong();
                json.skipWhitespace();
                char c = json.next();
                if (c == ']') {
                    break;
                }
                if (c != ',') {
                    throw json.error("',' or ']'", json.pos - 1);
                }
            }
        }
        json.end();
        if (n != expected) {
            throw new MalformedJsonException(n + " IDs where " + expected + " were asked for");
        }
        // a duplicate within one answer would be handed out twice: refuse the whole answer
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new MalformedJsonException("ID " + sorted[i] + " appears twice");
            }
        }
        return ids;
    }

    /**
     * One JSON object: member values are {@link String}, {@link Long} (integers that fit), {@link Double} (other
     * numbers), {@link Boolean}, {@code null}, {@link List} or {@link Map}; a repeated name keeps its last value.
     */
    static Map<String, @Nullable Object> object(String text) {
        Json json = new Json(text);
        json.skipWhitespace();
        if (json.peek() != '{') {
            throw json.error("'{'");
        }
        @SuppressWarnings("unchecked")
        // the text starts with '{', so the value is an object, never JSON null
        Map<String, @Nullable Object> object = (Map<String, @Nullable Object>) Objects.requireNonNull(json.value(0));
        json.end();
        return object;
    }

    private @Nullable Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("at most " + MAX_DEPTH + " levels of nesting");
        }
        skipWhitespace();
        char c = peek();
        switch (c) {
            case '{':
                return objectValue(depth);
            case '[':
                return arrayValue(depth);
            case '"':
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return null;
            default:
                if (c == '-' || c >= '0' && c <= '9') {
                    return number();
                }
                throw error("a value");
        }
    }

    private Map<String, @Nullable Object> objectValue(int depth) {
        expect('{');
        Map<String, @Nullable Object> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return members;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("a member name");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            members.put(name, value(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == '}') {
                return members;
            }
            if (c != ',') {
                throw error("',' or '}'", pos - 1);
            }
        }
    }

    private List<@Nullable Object> arrayValue(int depth) {
        expect('[');
        List<@Nullable Object> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return elements;
        }
        while (true) {
            elements.add(value(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == ']') {
                return elements;
            }
            if (c != ',') {
                throw error("',' or ']'", pos - 1);
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("'\"' closing the string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("no control character inside a string", pos - 1);
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("four hex digits");
                    }
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int digit = Character.digit(text.charAt(pos + i), 16);
                        if (digit < 0) {
                            throw error("four hex digits", pos + i);
                        }
                        code = code * 16 + digit;
                    }
                    pos += 4;
                    sb.append((char) code);
                }
                default -> throw error("an escape character", pos - 1);
            }
        }
    }

    private Number number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        digitsWithoutLeadingZero();
        boolean integral = true;
        if (pos < text.length() && text.charAt(pos) == '.') {
            integral = false;
            pos++;
            digits();
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            integral = false;
            pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            digits();
        }
        String literal = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(literal);
            } catch (NumberFormatException tooLarge) {
                // falls through to a double, as other JSON readers do
            }
        }
        return Double.parseDouble(literal);
    }

    private long nonNegativeLong() {
        int start = pos;
        if (peek() == '-') {
            throw error("a non-negative ID");
        }
        digitsWithoutLeadingZero();
        if (pos < text.length() && (text.charAt(pos) == '.' || text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            throw error("an integer ID without fraction or exponent");
        }
        try {
            return Long.parseLong(text, start, pos, 10);
        } catch (NumberFormatException e) {
            throw error("an ID of at most " + Long.MAX_VALUE, start);
        }
    }

    private void digitsWithoutLeadingZero() {
        if (peek() == '0') {
            pos++;
            if (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
                throw error("no leading zero", pos - 1);
            }
            return;
        }
        digits();
    }

    private void digits() {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos == start) {
            throw error("a digit");
        }
    }

    private void literal(String word) {
        if (!text.startsWith(word, pos)) {
            throw error("'" + word + "'");
        }
        pos += word.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("'" + c + "'");
        }
        pos++;
    }

    /** The next character, or {@link #END} past the last; the caller's own error then says what it expected. */
    private char peek() {
        return pos < text.length() ? text.charAt(pos) : END;
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private void end() {
        skipWhitespace();
        if (pos != text.length()) {
            throw error("the end of the body");
        }
    }

    private MalformedJsonException error(String expected) {
        return error(expected, pos);
    }

    private MalformedJsonException error(String expected, int at) {
        String found = at >= text.length() ? "the end" : "'" + printable(text.charAt(at)) + "'";
        return new MalformedJsonException("expected " + expected + " at character " + at + ", found " + found);
    }

    private static String printable(char c) {
        return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }
}
