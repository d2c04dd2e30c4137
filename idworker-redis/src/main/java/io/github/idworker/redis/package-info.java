/**
 * Redis plumbing the stores share: the script executor SPI, script loading, identity checks.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.redis;

import org.jspecify.annotations.NullMarked;
