package io.github.idworker.server;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the documentation writes it: strict JSON, plus {@code …} standing for "more here" — as a value (any value)
 * or as a member of an object (more members). Parses both the documented answers and the real ones, so that the two
 * compare by one set of rules.
 *
 * <p>Steps: a recursive descent over the text; objects keep their members in order and whether a {@code …} made
 * them open; numbers are {@link BigDecimal}s, so no id loses a digit.
 */
final class LooseJson {

    /** A value the document left out ({@code …}). */
    static final Object ANY = new Object() {
        @Override
        public String toString() {
            return "…";
        }
    };
    /** JSON {@code null}. */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** An object; {@code open} when the document marked it with {@code …} (more members may follow). */
    record JsonObject(Map<String, Object> members, boolean open) {
    }

    private final String text;
    private int at;

    private LooseJson(String text) {
        this.text = text;
    }

    /** Parses {@code text}, which must be one value and nothing else. */
    static Object parse(String text) {
        LooseJson parser = new LooseJson(text);
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length()) {
            throw parser.error("text after the value");
        }
        return value;
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        if (c == '{') {
            return object();
        }
        if (c == '[') {
            return array();
        }
        if (c == '"') {
            return string();
        }
        if (text.startsWith("…", at)) {
            at++;
            return ANY;
        }
        for (String word : List.of("true", "false", "null")) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? NULL : Boolean.valueOf(word);
            }
        }
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw error("a value");
        }
        return new BigDecimal(text.substring(start, at));
    }

    private JsonObject object() {
        at++;
        Map<String, Object> members = new LinkedHashMap<>();
        boolean open = false;
        while (true) {
            skipSpace();
            if (peek('}')) {
                at++;
                return new JsonObject(members, open);
            }
            if (text.startsWith("…", at)) {
                at++;
                open = true;
            } else {
                String key = string();
                skipSpace();
                expect(':');
                Object value = value();
                open |= value == ANY;
                members.put(key, value);
            }
            skipSpace();
            if (peek(',')) {
                at++;
            }
        }
    }

    private List<Object> array() {
        at++;
        List<Object> items = new ArrayList<>();
        while (true) {
            skipSpace();
            if (peek(']')) {
                at++;
                return items;
            }
            items.add(value());
            skipSpace();
            if (peek(',')) {
                at++;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (at < text.length() && text.charAt(at) != '"') {
            char c = text.charAt(at++);
            if (c == '\\') {
                char escaped = text.charAt(at++);
                switch (escaped) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(escaped);
                }
            } else {
                out.append(c);
            }
        }
        expect('"');
        return out.toString();
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private IllegalArgumentException error(String wanted) {
        return new IllegalArgumentException("expected " + wanted + " at " + at + " of: " + text);
    }
}
