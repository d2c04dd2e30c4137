/**
 * String forms of numeric identifiers: decimal, radix 36 and radix 62, at minimal or fixed width, with an optional
 * prefix ({@link io.github.idworker.format.IdFormats}); each form's {@code parse} is the exact inverse of its
 * {@code format}.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.format;

import org.jspecify.annotations.NullMarked;
