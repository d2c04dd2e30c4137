/**
 * Redis helpers of the contract kits.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.test.redis;

import org.jspecify.annotations.NullMarked;
