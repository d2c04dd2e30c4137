/**
 * The contract kit every pool store passes.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.pool;

import org.jspecify.annotations.NullMarked;
