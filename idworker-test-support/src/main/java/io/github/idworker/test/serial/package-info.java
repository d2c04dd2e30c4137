/**
 * The contract kit every serial store passes.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.serial;

import org.jspecify.annotations.NullMarked;
