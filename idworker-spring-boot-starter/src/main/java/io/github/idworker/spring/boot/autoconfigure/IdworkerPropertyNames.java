package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What Spring Boot makes of the {@code idworker.*} names an environment holds: which ones a property of idworker
 * reads, and which durations were written as a bare number, which Spring Boot reads as milliseconds. It guarantees
 * that a name it calls unknown is read by neither {@link IdWorkerProperties} nor {@link IdServiceClientProperties}
 * nor a {@code @ConfigurationProperties} prefix the caller names, so nothing reads it.
 *
 * <p>Steps:
 * <ol>
 *   <li>Bind both properties classes as Spring Boot does, recording every leaf property read and, for a
 *       {@link Duration} in milliseconds, its value as written; a value that does not bind is skipped (and still
 *       counts as read), so one bad value hides nothing else.</li>
 *   <li>List every {@code idworker.*} name of the environment's property sources with where it was set.</li>
 *   <li>A name is known when it was read, when it lies under a name read whole (the indexed elements of a list
 *       given at once elsewhere), when a list of it was read element by element, or when it lies under one of the
 *       caller's prefixes.</li>
 * </ol>
 */
final class IdworkerPropertyNames {

    private static final Pattern BARE_NUMBER = Pattern.compile("[+-]?\\d+");

    /** Every {@code idworker.*} name of the environment and where it was set ({@code null} when unknown). */
    private final Map<ConfigurationPropertyName, @Nullable Object> present = new TreeMap<>();
    private final Set<ConfigurationPropertyName> read = new HashSet<>();
    /** Durations in milliseconds written without a unit, by name, with their value as written. */
    private final Map<String, String> bareDurations = new TreeMap<>();

    private IdworkerPropertyNames() {
    }

    static IdworkerPropertyNames of(Environment environment) {
        IdworkerPropertyNames names = new IdworkerPropertyNames();
        ConfigurationPropertyName root = ConfigurationPropertyName.of(IdWorkerProperties.PREFIX);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                // the first source holding a name wins, as in binding (no computeIfAbsent: an origin may be null)
                iterable.stream().filter(root::isAncestorOf).filter(name -> !names.present.containsKey(name))
                        .forEach(name -> names.present.put(name, originOf(source, name)));
            }
        }
        if (names.present.isEmpty()) {
            return names;
        }
        Binder binder = Binder.get(environment);
        BindHandler recorder = names.new Recorder();
        binder.bind(IdWorkerProperties.PREFIX, Bindable.of(IdWorkerProperties.class), recorder);
        binder.bind(IdServiceClientProperties.PREFIX, Bindable.of(IdServiceClientProperties.class), recorder);
        return names;
    }

    private static @Nullable Object originOf(ConfigurationPropertySource source, ConfigurationPropertyName name) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        return property != null ? property.getOrigin() : null;
    }

    /**
     * The names nothing reads, each with where it was set when known ({@code idworker.lease.tll} →
     * {@code class path resource [application.yml] - 12:5}).
     *
     * @param claimed prefixes that {@code @ConfigurationProperties} beans of the application read, such as the ID
     *        server's {@code idworker.server}
     */
    Map<String, @Nullable Object> unknown(Collection<String> claimed) {
        Map<String, @Nullable Object> unknown = new LinkedHashMap<>();
        List<ConfigurationPropertyName> prefixes = claimed.stream().map(ConfigurationPropertyName::ofIfValid)
                .filter(Objects::nonNull).toList();
        present.forEach((name, origin) -> {
            if (!isRead(name) && prefixes.stream().noneMatch(p -> p.isAncestorOf(name))) {
                unknown.put(name.toString(), origin);
            }
        });
        return unknown;
    }

    private boolean isRead(ConfigurationPropertyName name) {
        for (ConfigurationPropertyName n = name; !n.isEmpty(); n = n.getParent()) {
            if (read.contains(n)) {
                return true;
            }
        }
        // a list given whole in one source and element by element in another: the elements were read
        String list = name + "[";
        return read.stream().anyMatch(r -> r.toString().startsWith(list));
    }

    /** Durations in milliseconds written as a bare number ({@code idworker.lease.ttl} → {@code 15}). */
    Map<String, String> bareDurations() {
        return bareDurations;
    }

    /**
     * {@code idworker.lease.ttl=15 was read as 15 ms (a number without a unit is milliseconds)} for each bare
     * duration that {@code text} names, one per line; empty when it names none.
     */
    String unitHints(String text) {
        StringBuilder hints = new StringBuilder();
        bareDurations.forEach((name, value) -> {
            if (text.contains(name)) {
                hints.append(hints.isEmpty() ? "" : "\n").append(hint(name, value));
            }
        });
        return hints.toString();
    }

    static String hint(String name, String value) {
        String number = value.strip();
        return name + "=" + number + " was read as " + number + " ms (a number without a unit is milliseconds); write "
                + number + "ms to keep it, or " + number + "s for seconds";
    }

    /** Records what binding reads; skips what fails to bind, so the rest is still read. */
    private final class Recorder implements BindHandler {

        @Override
        public @Nullable Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                                          @Nullable Object result) {
            ConfigurationProperty property = context.getConfigurationProperty();
            if (property != null && name.equals(property.getName())) {
                read.add(name);
                if (target.getType().resolve() == Duration.class && target.getAnnotation(DurationUnit.class) == null
                        && property.getValue() != null && BARE_NUMBER.matcher(property.getValue().toString().strip())
                        .matches()) {
                    bareDurations.put(name.toString(), property.getValue().toString());
                }
            }
            return result;
        }

        @Override
        public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                                          Exception error) {
            read.add(name);
            return null;
        }
    }
}
