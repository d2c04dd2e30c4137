/**
 * A team's own order service on the idworker starter, with zero setup.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.sample;

import org.jspecify.annotations.NullMarked;
