/**
 * The worker-id lease SPI ({@link io.github.idworker.lease.ISequenceManager}) and its fenced lease records.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.lease;

import org.jspecify.annotations.NullMarked;
