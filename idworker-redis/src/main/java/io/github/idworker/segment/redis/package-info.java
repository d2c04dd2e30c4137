/**
 * Strictly ordered sequences in Redis, refilled from the database under a lock.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.segment.redis;

import org.jspecify.annotations.NullMarked;
