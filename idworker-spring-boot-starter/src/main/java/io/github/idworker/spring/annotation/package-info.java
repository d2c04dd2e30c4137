/**
 * The {@code @Enable…} annotations that switch idworker's modes on, and their import selectors.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.spring.annotation;

import org.jspecify.annotations.NullMarked;
