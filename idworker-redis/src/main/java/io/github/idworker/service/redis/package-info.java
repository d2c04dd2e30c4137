/**
 * The ID service's nonce records and rate counts in Redis.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.service.redis;

import org.jspecify.annotations.NullMarked;
