/**
 * The snowflake worker: layouts, the fenced issuing state, and the worker that leases its bits.
 *
 * <p>Everything here is non-null unless marked {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.github.idworker.snowflake;

import org.jspecify.annotations.NullMarked;
