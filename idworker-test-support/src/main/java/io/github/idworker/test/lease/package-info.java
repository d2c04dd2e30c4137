/**
 * The contract kit every worker-id lease centre passes.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.lease;

import org.jspecify.annotations.NullMarked;
