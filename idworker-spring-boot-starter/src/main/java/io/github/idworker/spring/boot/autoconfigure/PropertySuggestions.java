package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.json.JsonParserFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

/**
 * The property of idworker a mistyped name most likely meant, from the names the configuration metadata lists (the
 * ones an IDE completes): the nearest by edit distance, when it is at most one edit per four characters of the
 * name's last element, at least one and at most {@value #MAX_EDITS} ({@code idworker.lease.tll} →
 * {@code idworker.lease.ttl}); else the only one that ends with the same last element ({@code idworker.ttl} →
 * {@code idworker.lease.ttl}). Suggests nothing rather than a guess further off.
 */
final class PropertySuggestions {

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";
    private static final int MAX_EDITS = 3;

    private final List<String> names;

    private PropertySuggestions(List<String> names) {
        this.names = names;
    }

    /** The {@code idworker.*} names of every configuration metadata file {@code classLoader} sees. */
    static PropertySuggestions load(@Nullable ClassLoader classLoader) {
        List<String> names = new ArrayList<>();
        try {
            Enumeration<URL> files = (classLoader != null ? classLoader : PropertySuggestions.class.getClassLoader())
                    .getResources(METADATA);
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    Object properties = JsonParserFactory.getJsonParser()
                            .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8)).get("properties");
                    if (properties instanceof List<?> list) {
                        for (Object property : list) {
                            if (property instanceof Map<?, ?> map && map.get("name") instanceof String name
                                    && name.startsWith(IdWorkerProperties.PREFIX + ".")) {
                                names.add(name);
                            }
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // a suggestion is a courtesy: without the metadata the warning names the property all the same
        }
        return new PropertySuggestions(List.copyOf(names));
    }

    @Nullable String closest(String unknown) {
        String last = unknown.substring(unknown.lastIndexOf('.') + 1);
        String best = null;
        int bestEdits = Math.max(1, Math.min(MAX_EDITS, last.length() / 4)) + 1;
        for (String name : names) {
            int edits = edits(unknown, name);
            if (edits < bestEdits) {
                best = name;
                bestEdits = edits;
            }
        }
        if (best != null) {
            return best;
        }
        List<String> sameLast = names.stream().filter(n -> n.endsWith("." + last)).toList();
        return sameLast.size() == 1 ? sameLast.get(0) : null;
    }

    /** Levenshtein distance. */
    private static int edits(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
