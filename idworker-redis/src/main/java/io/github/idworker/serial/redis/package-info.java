/**
 * Strict serial numbers: one stock per rule and period in Redis, shared by every node.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.serial.redis;

import org.jspecify.annotations.NullMarked;
