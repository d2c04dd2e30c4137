package io.github.idworker.spring.annotation;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.annotation.JsonSerialize;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Writes a 64-bit identifier as a JSON string ({@code "250593765314527232"}) and reads it back from a string or a
 * number, so that a JavaScript client, whose numbers are doubles exact only up to 2<sup>53</sup> − 1, receives
 * every digit: {@code JSON.parse} turns the number {@code 250593765314527232} into {@code 250593765314527230}.
 *
 * <p>Put it on a field, getter, constructor parameter or record component (Jackson 3, the one Spring Boot 4
 * uses) of type {@code long}, {@code Long}, {@code long[]}, {@code Long[]}, {@code List<Long>},
 * {@code Set<Long>} or {@code Collection<Long>}:
 *
 * <pre class="code">
 * public record Order(&#64;IdAsString long id, &#64;IdAsString List&lt;Long&gt; lineIds, String customer) { }
 * // {"id":"250593765314527232","lineIds":["250593765314527233"],"customer":"ada"}
 * public record Invoice(&#64;IdAsString(format = "base62", prefix = "inv_") long id) { }
 * // {"id":"inv_IVillXbwga"}
 * </pre>
 *
 * Only the annotated values change; other numbers stay numbers. In the default form, {@code decimal}, reading
 * accepts a JSON string of decimal digits with an optional leading {@code -} (the form written) or a JSON integer,
 * and refuses anything else (a fraction, {@code "+1"}, {@code " 1"}, {@code "1e3"}, a value beyond {@code long})
 * with an error naming the property, so an identifier is never rounded or guessed. Any other {@link #format()} (or
 * a {@link #prefix()}) is an {@link IdFormat} of {@link IdFormats#named}: written as that form writes, read back
 * only from a JSON string that form {@linkplain IdFormat#parse parses}, and a negative value is refused both ways.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@JacksonAnnotationsInside
@JsonSerialize(using = IdAsString.Writer.class)
@JsonDeserialize(using = IdAsString.Reader.class)
public @interface IdAsString {

    /**
     * Name of the string form ({@link IdFormats#named}): {@code decimal} (also {@code string}), {@code decimal-fixed},
     * {@code base36}, {@code base36-fixed}, {@code base62} or {@code base62-fixed}. Another name fails when Jackson
     * first meets the property, with an error naming the property and the names allowed.
     */
    String format() default IdFormats.DECIMAL;

    /** Prefix written before every identifier and required when reading ({@link IdFormat#withPrefix}); none if empty. */
    String prefix() default "";

    /** Writes a {@code long}, {@code Long}, {@code long[]}, {@code Long[]} or collection of them as strings. */
    final class Writer extends ValueSerializer<Object> {

        /** The form of the annotation's {@code format}; null for the default decimal form (any long, signed). */
        private final @Nullable IdFormat form;
        private final String property;

        /** The form Jackson instantiates from the annotation; {@link #createContextual} gives the working one. */
        public Writer() {
            this(null, "identifier");
        }

        private Writer(@Nullable IdFormat form, String property) {
            this.form = form;
            this.property = property;
        }

        @Override
        public ValueSerializer<?> createContextual(SerializationContext ctxt, @Nullable BeanProperty property) {
            IdFormat form = IdStringForms.of(ctxt, property);
            return form == null ? this : new Writer(form, property != null ? property.getName() : "identifier");
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializationContext ctxt) {
            if (value instanceof long[] array) {
                gen.writeStartArray(value, array.length);
                for (long id : array) {
                    gen.writeString(text(id, ctxt));
                }
                gen.writeEndArray();
            } else if (value instanceof Object[] array) {
                gen.writeStartArray(value, array.length);
                for (Object id : array) {
                    writeOne(id, gen, ctxt);
                }
                gen.writeEndArray();
            } else if (value instanceof Iterable<?> ids) {
                gen.writeStartArray(value);
                for (Object id : ids) {
                    writeOne(id, gen, ctxt);
                }
                gen.writeEndArray();
            } else {
                writeOne(value, gen, ctxt);
            }
        }

        private void writeOne(@Nullable Object id, JsonGenerator gen, SerializationContext ctxt) {
            if (id == null) {
                gen.writeNull();
            } else if (id instanceof Long || id instanceof Integer || id instanceof Short || id instanceof Byte) {
                gen.writeString(text(((Number) id).longValue(), ctxt));
            } else {
                ctxt.reportBadDefinition(id.getClass(), "@IdAsString applies to long, Long, long[], Long[] and "
                        + "collections of Long; found " + id.getClass().getName());
            }
        }

        private String text(long id, SerializationContext ctxt) {
            if (form == null) {
                return Long.toString(id);
            }
            try {
                return form.format(id);
            } catch (IllegalArgumentException negative) {
                throw DatabindException.from(ctxt, property + ": " + negative.getMessage(), negative);
            }
        }
    }

    /**
     * Reads what {@link Writer} writes (in the default decimal form, also plain JSON integers) into the annotated
     * property's type, chosen from the property when Jackson builds the deserializer.
     */
    final class Reader extends ValueDeserializer<Object> {

        private final @Nullable JavaType type;
        private final @Nullable String property;
        /** As {@link Writer}'s: null for the default decimal form. */
        private final @Nullable IdFormat form;

        /** The form Jackson instantiates from the annotation; {@link #createContextual} gives the working one. */
        public Reader() {
            this(null, null, null);
        }

        private Reader(@Nullable JavaType type, @Nullable String property, @Nullable IdFormat form) {
            this.type = type;
            this.property = property;
            this.form = form;
        }

        @Override
        public ValueDeserializer<?> createContextual(DeserializationContext ctxt, @Nullable BeanProperty property) {
            JavaType t = property != null ? property.getType() : ctxt.getContextualType();
            if (t == null) {
                return this;
            }
            return new Reader(t, property != null ? property.getName() : null, IdStringForms.of(ctxt, property));
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            if (type == null) {
                return readOne(p, ctxt);
            }
            Class<?> raw = type.getRawClass();
            if (raw == long.class || raw == Long.class) {
                return readOne(p, ctxt);
            }
            if (p.currentToken() != JsonToken.START_ARRAY) {
                return ctxt.reportInputMismatch(type, "%s: expected a JSON array of identifiers", name());
            }
            List<Long> ids = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                ids.add(p.currentToken() == JsonToken.VALUE_NULL ? null : readOne(p, ctxt));
            }
            if (raw == long[].class) {
                long[] out = new long[ids.size()];
                for (int i = 0; i < out.length; i++) {
                    if (ids.get(i) == null) {
                        return ctxt.reportInputMismatch(type, "%s: null is no identifier", name());
                    }
                    out[i] = ids.get(i);
                }
                return out;
            }
            if (raw == Long[].class) {
                return ids.toArray(new Long[0]);
            }
            if (raw.isAssignableFrom(ArrayList.class)) {
                return ids;
            }
            if (raw.isAssignableFrom(LinkedHashSet.class)) {
                return new LinkedHashSet<>(ids);
            }
            return ctxt.reportBadDefinition(type, "@IdAsString applies to long, Long, long[], Long[], List<Long>, "
                    + "Set<Long> and Collection<Long>; found " + type);
        }

        @Override
        public @Nullable Object getNullValue(DeserializationContext ctxt) {
            return type != null && type.getRawClass() == long.class ? reject(ctxt, "null is no identifier") : null;
        }

        private Long readOne(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (form != null) {
                if (t == JsonToken.VALUE_STRING) {
                    try {
                        return form.parse(p.getString());
                    } catch (IllegalArgumentException e) {
                        return reject(ctxt, String.valueOf(e.getMessage()));
                    }
                }
                return reject(ctxt, "expected an identifier as a JSON string in the " + form + " form; found "
                        + describe(p, t));
            }
            if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                return p.getLongValue();
            }
            if (t == JsonToken.VALUE_STRING) {
                String s = p.getString();
                if (isPlainDecimal(s)) {
                    try {
                        return Long.parseLong(s);
                    } catch (NumberFormatException tooLarge) {
                        // falls through to the error below
                    }
                }
            }
            return reject(ctxt, "expected an identifier as a string of decimal digits (optionally led by '-') "
                    + "that fits in a long, or a JSON integer; found " + describe(p, t));
        }

        private static boolean isPlainDecimal(String s) {
            int start = s.startsWith("-") ? 1 : 0;
            if (s.length() == start || s.length() - start > 19) {
                return false;
            }
            for (int i = start; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < '0' || c > '9') {
                    return false;
                }
            }
            return true;
        }

        private static String describe(JsonParser p, JsonToken t) {
            if (t == JsonToken.VALUE_STRING) {
                String s = p.getString();
                // an over-long value is cut so a hostile body cannot flood the error and the log that may keep it
                return "\"" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "\"";
            }
            return t == null ? "nothing" : t.name();
        }

        private <T> T reject(DeserializationContext ctxt, String why) {
            return ctxt.reportInputMismatch(type != null ? type : ctxt.constructType(Long.class), "%s: %s", name(), why);
        }

        private String name() {
            return property != null ? property : "identifier";
        }

        @Override
        public boolean isCachable() {
            return false;
        }
    }
}
