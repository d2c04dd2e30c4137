package io.github.idworker.server;

import org.jspecify.annotations.Nullable;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The answer a document shows under a {@code curl} example — its {@code # …} lines — and the check of a real answer
 * against it: the status ({@code HTTP 405}, {@code HTTP/1.1 405}, a problem document's {@code status}, else 200),
 * the headers shown ({@code Allow: GET}) and the body. Bodies compare by one of three {@link Rule}s.
 *
 * <p>Steps: group the comment lines (a line {@code #   …} continues the one before); sort each group into status,
 * header, body or log line (the server's log, not curl's output: not compared); parse the body with
 * {@link LooseJson}; compare status, headers, then body, collecting every difference.
 */
final class DocumentedAnswer {

    private static final Pattern STATUS = Pattern.compile("^HTTP(?:/1\\.1)? (\\d{3})\\s*(.*)$");
    private static final Pattern HEADER = Pattern.compile("^([A-Za-z][A-Za-z0-9-]*): (.+)$");
    private static final Pattern ERROR_ID = Pattern.compile("\"errorId\":\"([0-9a-f]+)\"");

    /** How a body compares. */
    enum Rule {
        /** Every value as shown; {@code …} stands for any value or more members. */
        EXACT,
        /** Time-dependent (snowflake ids, their decoding, health): the same structure, counts, keys and types. */
        SHAPE,
        /** Serial numbers: as shown once the date part is today's in the rule's zone (computed by the caller). */
        SERIAL
    }

    /** A real answer: {@code status} -1 when curl did not show it (no {@code -i}); header names lower-cased. */
    record Served(int status, Map<String, String> headers, String body) {
    }

    private final @Nullable Integer status;
    private final Map<String, String> headers;
    private final @Nullable String body;

    private DocumentedAnswer(@Nullable Integer status, Map<String, String> headers, @Nullable String body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    /**
     * The answer shown by {@code comments} (the {@code #} lines under the command, markers removed later), or by
     * {@code inline} (the command's own trailing comment) when no line follows and it reads like an answer.
     */
    static DocumentedAnswer of(List<String> comments, @Nullable String inline) {
        List<String> items = new ArrayList<>();
        for (String comment : comments) {
            String text = comment.replaceFirst("^#", "");
            if (text.startsWith("  ") && !items.isEmpty()) {
                items.set(items.size() - 1, items.get(items.size() - 1) + " " + text.strip());
            } else {
                items.add(text.strip());
            }
        }
        if (items.isEmpty() && inline != null && inline.matches("^(\\[|\\{|HTTP).*")) {
            items.add(inline);
        }
        Integer status = null;
        Map<String, String> headers = new LinkedHashMap<>();
        String body = null;
        for (String item : items) {
            Matcher statusLine = STATUS.matcher(item);
            Matcher header = HEADER.matcher(item);
            if (item.startsWith("log:")) {
                continue;
            } else if (statusLine.matches()) {
                status = Integer.valueOf(statusLine.group(1));
                body = statusLine.group(2).isEmpty() ? body : statusLine.group(2);
            } else if (header.matches() && !item.startsWith("{") && !item.startsWith("[")) {
                headers.put(header.group(1).toLowerCase(Locale.ROOT), header.group(2));
            } else {
                body = item;
            }
        }
        return new DocumentedAnswer(status, headers, body);
    }

    /** Whether the document shows any answer at all. */
    boolean shown() {
        return status != null || !headers.isEmpty() || body != null;
    }

    /**
     * The differences between {@code served} and this answer, empty when it matches. {@code today} lists the
     * acceptable forms of each documented serial number (its date part replaced by today's), for {@link Rule#SERIAL}.
     */
    List<String> differences(Served served, Rule rule, java.util.function.Function<String, Set<String>> today) {
        List<String> differences = new ArrayList<>();
        String shownBody = body;
        Matcher servedId = ERROR_ID.matcher(served.body());
        if (shownBody != null && servedId.find()) {
            // the errorId is drawn per failure: the document's example id stands for the served one
            Matcher shownId = ERROR_ID.matcher(shownBody);
            if (shownId.find()) {
                shownBody = shownBody.replace(shownId.group(1), servedId.group(1));
            }
        }
        Object shown = shownBody == null ? null : LooseJson.parse(shownBody);
        int expectedStatus = status != null ? status
                : shown instanceof LooseJson.JsonObject o && o.members().get("status") instanceof BigDecimal s
                ? s.intValue() : 200;
        if (served.status() >= 0 && served.status() != expectedStatus) {
            differences.add("status: documented " + expectedStatus + ", served " + served.status());
        }
        headers.forEach((name, value) -> {
            String got = served.headers().get(name);
            if (got == null || !(got.equals(value) || got.startsWith(value + ";"))) {
                differences.add("header " + name + ": documented '" + value + "', served '" + got + "'");
            }
        });
        if (shown != null) {
            Object got;
            try {
                got = LooseJson.parse(served.body());
            } catch (IllegalArgumentException notJson) {
                differences.add("body: documented " + shownBody + ", served (not JSON) " + served.body());
                return differences;
            }
            Rule applied = expectedStatus >= 400 ? Rule.EXACT : rule;
            compare("$", shown, got, applied, today, differences);
        } else if (status != null && !headers.isEmpty() && !served.body().isEmpty()) {
            differences.add("body: documented none (a HEAD answer), served " + served.body());
        }
        return differences;
    }

    private static void compare(String at, Object shown, Object got, Rule rule,
                                java.util.function.Function<String, Set<String>> today, List<String> out) {
        if (shown == LooseJson.ANY) {
            return;
        }
        if (shown instanceof LooseJson.JsonObject s) {
            if (!(got instanceof LooseJson.JsonObject g)) {
                out.add(at + ": documented an object, served " + got);
                return;
            }
            s.members().forEach((key, value) -> {
                if (!g.members().containsKey(key)) {
                    out.add(at + ": documented member '" + key + "' missing, served keys " + g.members().keySet());
                } else {
                    compare(at + "." + key, value, g.members().get(key), rule, today, out);
                }
            });
            if (!s.open() && !s.members().keySet().equals(g.members().keySet())) {
                out.add(at + ": documented keys " + s.members().keySet() + ", served " + g.members().keySet());
            }
        } else if (shown instanceof List<?> s) {
            if (!(got instanceof List<?> g) || g.size() != s.size()) {
                out.add(at + ": documented " + s.size() + " items " + s + ", served " + got);
                return;
            }
            for (int i = 0; i < s.size(); i++) {
                compare(at + "[" + i + "]", s.get(i), g.get(i), rule, today, out);
            }
        } else if (rule == Rule.SHAPE) {
            boolean sameKind = shown.getClass() == got.getClass()
                    && (!(shown instanceof String s) || s.matches("\\d+") == ((String) got).matches("\\d+"));
            if (!sameKind) {
                out.add(at + ": documented a value like " + shown + ", served " + got);
            }
        } else if (rule == Rule.SERIAL && shown instanceof String s) {
            if (!today.apply(s).contains(got)) {
                out.add(at + ": documented " + s + " (today: one of " + today.apply(s) + "), served " + got);
            }
        } else if (!(shown instanceof BigDecimal s ? got instanceof BigDecimal g && s.compareTo(g) == 0
                : shown.equals(got))) {
            out.add(at + ": documented " + shown + ", served " + got);
        }
    }
}
