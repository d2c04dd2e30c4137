/**
 * The contract kit every segment allocator passes.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.segment;

import org.jspecify.annotations.NullMarked;
