/**
 * ID pools held in Redis lists: one-round-trip takes, refills under a lock above the durable reservation.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.pool.redis;

import org.jspecify.annotations.NullMarked;
