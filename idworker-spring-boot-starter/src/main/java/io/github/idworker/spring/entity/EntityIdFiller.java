package io.github.idworker.spring.entity;

import io.github.idworker.IdWorkerConfigurationException;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fills the ID fields of entities that are still empty, from the {@link IdSources} each field names; a field the
 * application has set keeps its value. An ID field is one marked {@link GeneratedId}, or one named in the
 * configured mapping {@code idworker.entity-ids.fields} ({@code com.example.Order.id=segment:order}), which wins
 * over the annotation. Thread-safe; the fields of a class are found once and kept.
 *
 * <p>What is checked when: a configured field that does not exist, is not a {@code Long}, {@code long} or
 * {@code String}, or names a malformed source fails the constructor; {@link #checkConfiguredSources()} (run by the
 * starter once every singleton exists) resolves each configured source, so a name no generator answers to fails
 * the startup too. A {@code @GeneratedId} field is found only when an entity of its class is first filled (there
 * is no class list to scan), so its type and source are checked then; so is a segment or sequence tag, whose
 * existence only its store can tell.
 *
 * <p>Steps of {@link #fillAll(Iterable)}:
 * <ol>
 *   <li>Find each entity's ID fields (its class and superclasses; each entity counted once however often it is
 *       passed).</li>
 *   <li>Keep the fields that are empty: {@code null}, or {@code 0} for a {@code long}.</li>
 *   <li>Per source, draw all the IDs needed in one {@code nextIds(n)} call (one round trip for a Redis sequence)
 *       and assign them in the order the entities came.</li>
 * </ol>
 */
public final class EntityIdFiller {

    private final IdSources sources;
    private final Map<String, String> configured;
    private final ClassValue<List<IdField>> fields = new ClassValue<>() {
        @Override
        protected List<IdField> computeValue(Class<?> type) {
            return scan(type);
        }
    };

    /**
     * @param sources where the named generators are found
     * @param configured ID fields named by class and field ({@code com.example.Order.id}) with their source, for
     *        entities the application cannot annotate; each must name a field that exists
     * @param classLoader loads the configured classes, so a misspelt name fails at startup
     * @throws IdWorkerConfigurationException naming {@code idworker.entity-ids.fields} and the entry at fault
     */
    public EntityIdFiller(IdSources sources, Map<String, String> configured, @Nullable ClassLoader classLoader) {
        this.sources = sources;
        this.configured = Map.copyOf(configured);
        this.configured.forEach((key, source) -> check(key, source, classLoader));
    }

    /**
     * Resolves the source of every configured field through the {@link IdSources}, so that a name that stands for
     * no generator fails now rather than at the first insert. Call it once the generators exist (the starter does,
     * after all singletons are created).
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.entity-ids.fields[<key>]}, the source, what
     *         was missing and the forms a source may take
     */
    public void checkConfiguredSources() {
        configured.forEach((key, source) -> {
            try {
                sources.get(source);
            } catch (IdWorkerConfigurationException e) {
                throw new IdWorkerConfigurationException(property(key), property(key) + "=" + source
                        + " names no usable generator: " + detail(e), e);
            }
        });
    }

    /** Fills the empty ID fields of {@code entity}; returns how many it filled (0 for an object without any). */
    public int fill(Object entity) {
        return fillAll(List.of(entity));
    }

    /** Fills the empty ID fields of every entity, one {@code nextIds} call per source; returns how many it filled. */
    public int fillAll(Iterable<?> entities) {
        Map<String, List<Slot>> bySource = new LinkedHashMap<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object entity : entities) {
            if (entity == null || !seen.add(entity)) {
                continue;
            }
            for (IdField f : fields.get(entity.getClass())) {
                if (f.isEmpty(entity)) {
                    bySource.computeIfAbsent(f.source(), s -> new ArrayList<>()).add(new Slot(entity, f));
                }
            }
        }
        int filled = 0;
        for (Map.Entry<String, List<Slot>> e : bySource.entrySet()) {
            List<Slot> slots = e.getValue();
            long[] ids = sources.get(e.getKey()).nextIds(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                slots.get(i).field().assign(slots.get(i).entity(), ids[i]);
            }
            filled += slots.size();
        }
        return filled;
    }

    /** Whether objects of {@code type} have an ID field this filler fills. */
    public boolean hasIdFields(Class<?> type) {
        return !fields.get(type).isEmpty();
    }

    /** The names of the ID fields objects of {@code type} have (declared in it or a superclass). */
    public Set<String> idFieldNames(Class<?> type) {
        Set<String> names = new LinkedHashSet<>();
        fields.get(type).forEach(f -> names.add(f.field().getName()));
        return names;
    }

    /** Whether {@code entity} has an ID field named {@code name} that is still empty (one this filler would fill). */
    public boolean hasEmptyIdField(Object entity, String name) {
        for (IdField f : fields.get(entity.getClass())) {
            if (f.field().getName().equals(name) && f.isEmpty(entity)) {
                return true;
            }
        }
        return false;
    }

    private List<IdField> scan(Class<?> type) {
        if (type.isPrimitive() || type.isArray() || type.getName().startsWith("java.")) {
            return List.of();
        }
        List<IdField> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                String source = configured.get(c.getName() + "." + field.getName());
                GeneratedId annotation = field.getAnnotation(GeneratedId.class);
                if (source == null && annotation != null) {
                    source = annotation.generator();
                }
                if (source != null) {
                    out.add(IdField.of(field, source));
                }
            }
        }
        return List.copyOf(out);
    }

    /** The message of {@code e} without the property it starts with (the caller names its own). */
    private static String detail(IdWorkerConfigurationException e) {
        String message = String.valueOf(e.getMessage());
        String prefix = e.getProperty() + ": ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    private static String property(String key) {
        return "idworker.entity-ids.fields[" + key + "]";
    }

    private static void check(String key, String source, @Nullable ClassLoader classLoader) {
        String property = property(key);
        int dot = key.lastIndexOf('.');
        if (dot <= 0 || dot == key.length() - 1 || source.isBlank()) {
            throw new IdWorkerConfigurationException(property, property + "=" + source + " must name a class and a "
                    + "field (com.example.Order.id) and an ID source (snowflake, segment:<tag>, sequence:<tag> or "
                    + "an IdGenerator bean's name)");
        }
        String malformed = SourceNames.malformed(source);
        if (malformed != null) {
            throw new IdWorkerConfigurationException(property, property + " names no generator: " + malformed);
        }
        Field field;
        try {
            Class<?> type = Class.forName(key.substring(0, dot), false, classLoader);
            field = type.getDeclaredField(key.substring(dot + 1));
        } catch (ClassNotFoundException | NoSuchFieldException e) {
            throw new IdWorkerConfigurationException(property, property + " names no field of this application: "
                    + e.getMessage() + " was not found; write the class's full name and the field as declared, "
                    + "for example com.example.Order.id", e);
        }
        try {
            IdField.of(field, source);
        } catch (IdWorkerConfigurationException e) {
            // the same type and modifier rules as @GeneratedId, reported under the property that named the field
            throw new IdWorkerConfigurationException(property, property + "=" + source + ": " + detail(e), e);
        }
    }

    private record Slot(Object entity, IdField field) {
    }

    /** One ID field: where it is, what type it has, which source fills it. */
    private record IdField(Field field, String source, Kind kind) {

        enum Kind { BOXED, PRIMITIVE, TEXT }

        static IdField of(Field field, String source) {
            String where = field.getDeclaringClass().getName() + "." + field.getName();
            Kind kind;
            if (field.getType() == Long.class) {
                kind = Kind.BOXED;
            } else if (field.getType() == long.class) {
                kind = Kind.PRIMITIVE;
            } else if (field.getType() == String.class) {
                kind = Kind.TEXT;
            } else {
                throw new IdWorkerConfigurationException("generator", "ID field " + where + " is a "
                        + field.getType().getName() + "; an ID field filled on insert must be a Long, a long or a "
                        + "String");
            }
            if (Modifier.isFinal(field.getModifiers()) || Modifier.isStatic(field.getModifiers())) {
                throw new IdWorkerConfigurationException("generator", "ID field " + where + " is final or static; "
                        + "an ID filled on insert is written into the entity, so the field must be a mutable "
                        + "instance field");
            }
            field.setAccessible(true);
            return new IdField(field, source, kind);
        }

        boolean isEmpty(Object entity) {
            try {
                Object value = field.get(entity);
                return value == null || (kind == Kind.PRIMITIVE && ((Long) value) == 0L);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read ID field " + field, e);
            }
        }

        void assign(Object entity, long id) {
            try {
                switch (kind) {
                    case BOXED, PRIMITIVE -> field.set(entity, id);
                    case TEXT -> field.set(entity, Long.toString(id));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot write ID field " + field, e);
            }
        }
    }
}
