/**
 * The {@code @Enable…} annotations that switch idworker's modes on, their import selectors, and {@code @IdAsString},
 * which writes identifiers as JSON strings in a form of {@code IdFormats}.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.annotation;

import org.jspecify.annotations.NullMarked;
