/**
 * Per-entity ID pools: the configuration of a pool, the pool API and its typed failures.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.pool;

import org.jspecify.annotations.NullMarked;
