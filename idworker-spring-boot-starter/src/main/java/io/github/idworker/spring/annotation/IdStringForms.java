package io.github.idworker.spring.annotation;

import io.github.idworker.format.IdFormat;
import io.github.idworker.format.IdFormats;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DatabindContext;

/** The {@link IdFormat} an {@link IdAsString} names, checked once per property when Jackson builds its (de)serializer. */
final class IdStringForms {

    private IdStringForms() {
    }

    /**
     * The form {@code property}'s {@link IdAsString} asks for; null for the default decimal form without a prefix,
     * which keeps writing and reading any {@code long}, sign included, as {@code @IdAsString} always has.
     *
     * @throws tools.jackson.databind.DatabindException naming the property when its format or prefix is not allowed
     */
    static @Nullable IdFormat of(DatabindContext ctxt, @Nullable BeanProperty property) {
        IdAsString annotation = property != null ? property.getAnnotation(IdAsString.class) : null;
        if (property == null || annotation == null) {
            return null;
        }
        String name = annotation.format();
        String prefix = annotation.prefix();
        if (prefix.isEmpty() && (name.equals(IdFormats.DECIMAL) || name.equals(IdFormats.STRING))) {
            return null;
        }
        if (!IdFormats.names().contains(name)) {
            return ctxt.reportBadDefinition(property.getType(), "@IdAsString on " + property.getName()
                    + ": format must be one of " + String.join(", ", IdFormats.names()) + ", was \"" + name + "\"");
        }
        IdFormat form = IdFormats.named(name);
        try {
            return prefix.isEmpty() ? form : form.withPrefix(prefix);
        } catch (IllegalArgumentException badPrefix) {
            return ctxt.reportBadDefinition(property.getType(), "@IdAsString on " + property.getName() + ": "
                    + badPrefix.getMessage());
        }
    }
}
