/**
 * Serial numbers: rules of prefix, date and padded number, and their in-process form.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.serial;

import org.jspecify.annotations.NullMarked;
