/**
 * The worker-id lease centre on Redis, one Lua call per step.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.lease.redis;

import org.jspecify.annotations.NullMarked;
