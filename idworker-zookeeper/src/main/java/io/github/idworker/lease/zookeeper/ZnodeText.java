package io.github.idworker.lease.zookeeper;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text form of idworker's znodes: one {@code key=value} per line, readable with {@code zkCli.sh get}. Values
 * never hold a line break (it is replaced by a space), so every stored value reads back as written.
 */
final class ZnodeText {

    private ZnodeText() {
    }

    static byte[] encode(Map<String, String> fields) {
        StringBuilder text = new StringBuilder();
        fields.forEach((key, value) -> text.append(key).append('=')
                .append(value.replace('\n', ' ').replace('\r', ' ')).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The fields of {@code data}; lines without {@code =} are skipped, so a damaged node reads as fields missing. */
    static Map<String, String> decode(byte[] data) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (data == null) {
            return fields;
        }
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return fields;
    }

    /** The field as a number, or {@code null} when it is missing or not a number. */
    static @Nullable Long number(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
